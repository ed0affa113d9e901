import { passkeyClient } from '@better-auth/passkey/client';
import { stripeClient } from '@better-auth/stripe/client';
import { accessControl, ORG_ROLES } from '@formgate/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { inferOrgAdditionalFields, organizationClient, twoFactorClient } from 'better-auth/client/plugins';
import { createAuthClient } from 'better-auth/react';
import { authPathOf, queriesToInvalidate } from './auth-invalidation.ts';

/** The organization's own fields on the server (better-auth `additionalFields`): "members must use two-factor". */
const ORGANIZATION_FIELDS = {
  requireTwoFactor: { type: 'boolean', required: false, input: true },
} as const;

/**
 * better-auth's client for `/api/auth` on the product's own host (credentials included). Every successful call
 * refreshes the queries spec §4 names; a response carrying `url` and `redirect` navigates the browser (better-auth's
 * redirect plugin). The Stripe client plugin adds `subscription.*`; the billing screen redirects by itself
 * (`disableRedirect`) so it can check the link first. The two-factor client plugin adds `twoFactor.*`, given no
 * `twoFactorPage`: a sign-in answering `twoFactorRedirect` is followed by the sign-in form, without a page load. The
 * passkey client plugin adds `passkey.*` and `signIn.passkey` (the browser's WebAuthn prompt, then the server's check).
 */
export function createFormgateAuthClient(queryClient: QueryClient, baseURL = globalThis.location?.origin) {
  return createAuthClient({
    baseURL,
    basePath: '/api/auth',
    plugins: [
      organizationClient({
        ac: accessControl,
        roles: ORG_ROLES,
        teams: { enabled: true },
        schema: inferOrgAdditionalFields({ organization: { additionalFields: ORGANIZATION_FIELDS } }),
      }),
      twoFactorClient(),
      passkeyClient(),
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
