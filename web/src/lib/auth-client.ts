import { passkeyClient } from '@better-auth/passkey/client';
import { ssoClient } from '@better-auth/sso/client';
import { stripeClient } from '@better-auth/stripe/client';
import { accessControl, ORG_ROLES } from '@formgate/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { inferOrgAdditionalFields, organizationClient, twoFactorClient } from 'better-auth/client/plugins';
import { createAuthClient } from 'better-auth/react';
import { authPathOf, queriesToInvalidate } from './auth-invalidation.ts';

/**
 * The organization's own fields on the server (better-auth `additionalFields`): "members must use two-factor" and
 * "members must sign in with single sign-on".
 */
const ORGANIZATION_FIELDS = {
  requireTwoFactor: { type: 'boolean', required: false, input: true },
  requireSso: { type: 'boolean', required: false, input: true },
} as const;

/** The identity provider's own field on the server: the role people join the organization with (member or admin). */
const SSO_PROVIDER_FIELDS = {
  defaultRole: { type: 'string', required: false, input: true },
} as const;

/**
 * better-auth's client for `/api/auth` on the product's own host (credentials included). Every successful call
 * refreshes the queries spec §4 names; a response carrying `url` and `redirect` navigates the browser (better-auth's
 * redirect plugin). The Stripe client plugin adds `subscription.*`; the billing screen redirects by itself
 * (`disableRedirect`) so it can check the link first. The two-factor client plugin adds `twoFactor.*`, given no
 * `twoFactorPage`: a sign-in answering `twoFactorRedirect` is followed by the sign-in form, without a page load. The
 * passkey client plugin adds `passkey.*` and `signIn.passkey` (the browser's WebAuthn prompt, then the server's check).
 * The SSO client plugin adds `sso.*` (the organization's identity provider and its domain's verification) and
 * `signIn.sso`, whose answer (`url`, `redirect`) sends the browser to the identity provider.
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
      ssoClient({
        domainVerification: { enabled: true },
        schema: { ssoProvider: { additionalFields: SSO_PROVIDER_FIELDS } },
      }),
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
