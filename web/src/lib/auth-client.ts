import { stripeClient } from '@better-auth/stripe/client';
import { accessControl, ORG_ROLES } from '@formgate/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { organizationClient } from 'better-auth/client/plugins';
import { createAuthClient } from 'better-auth/react';
import { authPathOf, queriesToInvalidate } from './auth-invalidation.ts';

/**
 * better-auth's client for `/api/auth` on the product's own host (credentials included). Every successful call
 * refreshes the queries spec §4 names; a response carrying `url` and `redirect` navigates the browser (better-auth's
 * redirect plugin). The Stripe client plugin adds `subscription.*`; the billing screen redirects by itself
 * (`disableRedirect`) so it can check the link first.
 */
export function createFormgateAuthClient(queryClient: QueryClient, baseURL = globalThis.location?.origin) {
  return createAuthClient({
    baseURL,
    basePath: '/api/auth',
    plugins: [
      organizationClient({ ac: accessControl, roles: ORG_ROLES, teams: { enabled: true } }),
      // `auth.subscription.*`: Stripe checkout, cancel, restore and the billing portal (features/billing).
      stripeClient({ subscription: true }),
    ],
    fetchOptions: {
      onSuccess: async (context) => {
        const keys = queriesToInvalidate(authPathOf(context.request.url));
        await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      },
    },
  });
}

export type AuthClient = ReturnType<typeof createFormgateAuthClient>;
