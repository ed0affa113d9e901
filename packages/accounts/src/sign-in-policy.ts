import { SSO_REQUIRED_MESSAGE, TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx } from 'better-auth/api';

/** The organization column of the setting "members must use two-factor" (better-auth `additionalFields`). */
export const REQUIRE_TWO_FACTOR_FIELD = 'requireTwoFactor';
/** The organization column of the setting "members must sign in with single sign-on". */
export const REQUIRE_SSO_FIELD = 'requireSso';
/** The session column naming the organization whose identity provider created the session (`single-sign-on.ts`). */
export const SSO_SESSION_FIELD = 'ssoOrganizationId';

/** better-auth's organization schema option that adds both settings (false by default, set through `/organization/update`). */
export const signInPolicySchema = {
  organization: {
    additionalFields: {
      [REQUIRE_TWO_FACTOR_FIELD]: { type: 'boolean', required: false, defaultValue: false, input: true },
      [REQUIRE_SSO_FIELD]: { type: 'boolean', required: false, defaultValue: false, input: true },
    },
  },
} as const;

/** The requirement a dashboard session does not meet in its organization, as the error code that refuses it. */
export type UnmetSignInRequirement = 'SSO_REQUIRED' | 'TWO_FACTOR_REQUIRED';

/** What the policy needs to know of a signed-in member. */
export interface SignInFacts {
  /** The user has two-factor on. */
  hasTwoFactor: boolean;
  /** The organization whose identity provider this session came through, if any. */
  ssoOrganizationId: string | null | undefined;
  /** The member's roles in the organization: owners may always sign in without single sign-on (break-glass). */
  roles: string[];
}

/**
 * Organization endpoints a member may still call while their organization refuses their session: listing,
 * choosing, creating, joining and leaving organizations, and their own membership. Everything else under
 * `/organization/` reads or changes the organization (members, invitations, teams, settings) and is refused.
 */
const OPEN_TO_ANY_SESSION = new Set([
  '/organization/list',
  '/organization/set-active',
  '/organization/create',
  '/organization/check-slug',
  '/organization/leave',
  '/organization/get-active-member',
  '/organization/get-active-member-role',
  '/organization/accept-invitation',
  '/organization/reject-invitation',
  '/organization/list-user-invitations',
  '/organization/get-invitation',
]);

interface PolicyAdapter {
  findOne<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
}

/** Whether this member's session could be refused at all: no read of the organization is needed otherwise. */
export const mayBeRefused = (orgId: string, facts: SignInFacts) =>
  !facts.hasTwoFactor || (facts.ssoOrganizationId !== orgId && !facts.roles.includes('owner'));

/**
 * The organization's requirement this member's session does not meet, or null. Single sign-on first: a member who
 * must come through the identity provider is told so before being asked to set up two-factor. Owners are exempt
 * from single sign-on (they keep a way in when the provider is down), never from two-factor.
 */
export async function unmetSignInRequirement(
  adapter: PolicyAdapter,
  orgId: string,
  facts: SignInFacts,
): Promise<UnmetSignInRequirement | null> {
  if (!mayBeRefused(orgId, facts)) return null;
  const org = await adapter.findOne<Record<string, unknown>>({
    model: 'organization',
    where: [{ field: 'id', value: orgId }],
  });
  if (org?.[REQUIRE_SSO_FIELD] === true && facts.ssoOrganizationId !== orgId && !facts.roles.includes('owner'))
    return 'SSO_REQUIRED';
  if (org?.[REQUIRE_TWO_FACTOR_FIELD] === true && !facts.hasTwoFactor) return 'TWO_FACTOR_REQUIRED';
  return null;
}

export const signInRequirementError = (code: UnmetSignInRequirement) =>
  new APIError('FORBIDDEN', {
    code,
    message: code === 'SSO_REQUIRED' ? SSO_REQUIRED_MESSAGE : TWO_FACTOR_REQUIRED_MESSAGE,
  });

/** The organization's verified identity provider, if it has one. */
async function hasVerifiedProvider(adapter: PolicyAdapter, orgId: string): Promise<boolean> {
  const provider = await adapter.findOne<{ domainVerified?: boolean }>({
    model: 'ssoProvider',
    where: [{ field: 'organizationId', value: orgId }],
  });
  return provider?.domainVerified === true;
}

/**
 * The organization settings "members must use two-factor" and "members must sign in with single sign-on" on
 * better-auth's own organization endpoints (the gateway checks Formgate's `/api/v1` routes, `authenticate.ts`):
 * - a member whose session does not meet a requirement of the organization (`unmetSignInRequirement`) is refused
 *   every organization endpoint but those of `OPEN_TO_ANY_SESSION`, with 403 `SSO_REQUIRED` or `TWO_FACTOR_REQUIRED`;
 * - turning two-factor on needs two-factor on the account that does it, so that an owner cannot lock themselves out
 *   by mistake (400 `TWO_FACTOR_NOT_SET_UP`); turning single sign-on on needs the organization's identity provider
 *   with its domain verified (400 `SSO_NOT_SET_UP`).
 * Requests without a session (API keys never reach these endpoints) are left to better-auth.
 */
export function signInPolicyPlugin() {
  return {
    id: 'formgate-sign-in-policy',
    hooks: {
      before: [
        {
          matcher: (ctx) => !!ctx.path?.startsWith('/organization/') && !OPEN_TO_ANY_SESSION.has(ctx.path),
          handler: createAuthMiddleware(async (ctx) => {
            const session = await getSessionFromCtx(ctx);
            if (!session) return;
            const adapter = ctx.context.adapter as unknown as PolicyAdapter;
            const hasTwoFactor = (session.user as { twoFactorEnabled?: boolean | null }).twoFactorEnabled === true;
            const body = (ctx.body ?? {}) as { organizationId?: unknown; data?: Record<string, unknown> };
            const query = (ctx.query ?? {}) as { organizationId?: unknown };
            const orgId =
              typeof body.organizationId === 'string'
                ? body.organizationId
                : typeof query.organizationId === 'string'
                  ? query.organizationId
                  : (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
            if (ctx.path === '/organization/update') {
              if (body.data?.[REQUIRE_TWO_FACTOR_FIELD] === true && !hasTwoFactor)
                throw new APIError('BAD_REQUEST', {
                  code: 'TWO_FACTOR_NOT_SET_UP',
                  message: 'Set up two-factor authentication on your profile before you require it of members',
                });
              if (body.data?.[REQUIRE_SSO_FIELD] === true && !(orgId && (await hasVerifiedProvider(adapter, orgId))))
                throw new APIError('BAD_REQUEST', {
                  code: 'SSO_NOT_SET_UP',
                  message: 'Connect an identity provider and verify its domain before you require single sign-on',
                });
            }
            if (!orgId) return;
            const member = await adapter.findOne<{ role: string }>({
              model: 'member',
              where: [
                { field: 'organizationId', value: orgId },
                { field: 'userId', value: session.user.id },
              ],
            });
            if (!member) return;
            const unmet = await unmetSignInRequirement(adapter, orgId, {
              hasTwoFactor,
              ssoOrganizationId: (session.session as Record<string, unknown>)[SSO_SESSION_FIELD] as string | null,
              roles: member.role.split(',').map((r) => r.trim()),
            });
            if (unmet) throw signInRequirementError(unmet);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
