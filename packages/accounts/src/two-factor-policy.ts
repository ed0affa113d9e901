import { TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx } from 'better-auth/api';

/** The organization column of the setting "members must use two-factor" (better-auth `additionalFields`). */
export const REQUIRE_TWO_FACTOR_FIELD = 'requireTwoFactor';

/** better-auth's organization schema option that adds the setting (false by default, set through `/organization/update`). */
export const requireTwoFactorSchema = {
  organization: {
    additionalFields: {
      [REQUIRE_TWO_FACTOR_FIELD]: { type: 'boolean', required: false, defaultValue: false, input: true },
    },
  },
} as const;

/**
 * Organization endpoints a member without two-factor may still call while their organization requires it: listing,
 * choosing, creating, joining and leaving organizations, and their own membership. Everything else under
 * `/organization/` reads or changes the organization (members, invitations, teams, settings) and is refused.
 */
const OPEN_WITHOUT_TWO_FACTOR = new Set([
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

/** Whether the organization requires its members to use two-factor; false for an unknown one. */
export async function organizationRequiresTwoFactor(adapter: PolicyAdapter, orgId: string): Promise<boolean> {
  const org = await adapter.findOne<Record<string, unknown>>({
    model: 'organization',
    where: [{ field: 'id', value: orgId }],
  });
  return org?.[REQUIRE_TWO_FACTOR_FIELD] === true;
}

export const twoFactorRequired = () =>
  new APIError('FORBIDDEN', { code: 'TWO_FACTOR_REQUIRED', message: TWO_FACTOR_REQUIRED_MESSAGE });

/**
 * The organization setting "members must use two-factor" on better-auth's own organization endpoints (the gateway
 * checks Formgate's `/api/v1` routes, `authenticate.ts`):
 * - a member whose organization requires it and who has not set two-factor up is refused every organization endpoint
 *   but those of `OPEN_WITHOUT_TWO_FACTOR`, with 403 `TWO_FACTOR_REQUIRED`;
 * - turning the setting on needs two-factor on the account that does it, so that an owner cannot lock themselves out
 *   by mistake (400 `TWO_FACTOR_NOT_SET_UP`).
 * Requests without a session (API keys never reach these endpoints) are left to better-auth.
 */
export function twoFactorPolicyPlugin() {
  return {
    id: 'formgate-two-factor-policy',
    hooks: {
      before: [
        {
          matcher: (ctx) => !!ctx.path?.startsWith('/organization/') && !OPEN_WITHOUT_TWO_FACTOR.has(ctx.path),
          handler: createAuthMiddleware(async (ctx) => {
            const session = await getSessionFromCtx(ctx);
            if (!session) return;
            const hasTwoFactor = (session.user as { twoFactorEnabled?: boolean | null }).twoFactorEnabled === true;
            const body = (ctx.body ?? {}) as { organizationId?: unknown; data?: Record<string, unknown> };
            if (ctx.path === '/organization/update' && body.data?.[REQUIRE_TWO_FACTOR_FIELD] === true && !hasTwoFactor)
              throw new APIError('BAD_REQUEST', {
                code: 'TWO_FACTOR_NOT_SET_UP',
                message: 'Set up two-factor authentication on your profile before you require it of members',
              });
            if (hasTwoFactor) return;
            const query = (ctx.query ?? {}) as { organizationId?: unknown };
            const orgId =
              typeof body.organizationId === 'string'
                ? body.organizationId
                : typeof query.organizationId === 'string'
                  ? query.organizationId
                  : (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
            if (orgId && (await organizationRequiresTwoFactor(ctx.context.adapter, orgId))) throw twoFactorRequired();
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
