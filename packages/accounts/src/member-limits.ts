import type { Plan } from '@formgate/contracts';
import { SITE_ORG_ID } from '@formgate/contracts';
import type { PlanCatalog } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, isAPIError } from 'better-auth/api';

type Where = { field: string; value: string | number | boolean | Date; operator?: 'eq' | 'gt' };

/** What the limit needs of better-auth's adapter (the real one has more). */
export interface MemberLimitAdapter {
  count(input: { model: string; where: Where[] }): Promise<number>;
  findMany<T>(input: { model: string; where?: Where[] }): Promise<T[]>;
}

/** A subscription in one of these states gives its plan; any other (canceled, incomplete, unpaid…) the default. */
const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);

export interface MemberLimitDeps {
  plans: PlanCatalog;
  /** The stripe plugin is on (its `subscription` table exists); off: every organization is on the default plan. */
  billingEnabled: boolean;
  adapter: () => MemberLimitAdapter;
  now: () => Date;
}

const limitReached = (max: number) =>
  new APIError('FORBIDDEN', {
    code: 'PLAN_LIMIT_REACHED',
    message: `The organization's plan allows ${max} member${max === 1 ? '' : 's'}, pending invitations included; remove one or upgrade the plan`,
    details: { limit: 'members', max },
  });

/**
 * The plan's `members` limit (issue 13). The plan is the one of the organization's live subscription in the stripe
 * plugin's `subscription` table, else the default plan. Invitations count against it while pending: with a limit of
 * 2, the owner and one pending invitation fill it, so the second invitation is refused (403 `PLAN_LIMIT_REACHED`).
 * Accepting an invitation, or adding a member directly, over the limit (the plan was lowered since) is refused the
 * same way. Members kept over a lowered limit stay. The site organization has no limit.
 */
export function createMemberLimits(deps: MemberLimitDeps) {
  const planOf = async (orgId: string): Promise<Plan> => {
    if (!deps.billingEnabled) return deps.plans.resolve(undefined);
    const rows = await deps.adapter().findMany<{ plan: string; status: string }>({
      model: 'subscription',
      where: [{ field: 'referenceId', value: orgId }],
    });
    return deps.plans.resolve(rows.find((r) => LIVE_STATUSES.has(r.status))?.plan);
  };
  /** The most members the organization may have (`null`: no limit). */
  const maxOf = async (orgId: string): Promise<number | null> =>
    orgId === SITE_ORG_ID ? null : (await planOf(orgId)).limits.members;

  return {
    planOf,
    /** better-auth's `membershipLimit` (accepting an invitation, adding a member). */
    membershipLimit: async (_user: unknown, organization: { id: string }) =>
      (await maxOf(organization.id)) ?? Number.POSITIVE_INFINITY,
    /** The organization hook before an invitation is created (a re-invitation's old one is canceled already). */
    async beforeCreateInvitation({ organization }: { organization: { id: string } }) {
      const max = await maxOf(organization.id);
      if (max === null) return;
      const adapter = deps.adapter();
      const members = await adapter.count({
        model: 'member',
        where: [{ field: 'organizationId', value: organization.id }],
      });
      const pending = await adapter.count({
        model: 'invitation',
        where: [
          { field: 'organizationId', value: organization.id },
          { field: 'status', value: 'pending' },
          { field: 'expiresAt', operator: 'gt', value: deps.now() },
        ],
      });
      if (members + pending >= max) throw limitReached(max);
    },
  };
}

export type MemberLimits = ReturnType<typeof createMemberLimits>;

/**
 * better-auth refuses an acceptance over `membershipLimit` with its own `ORGANIZATION_MEMBERSHIP_LIMIT_REACHED`; this
 * plugin answers it as Formgate's 403 `PLAN_LIMIT_REACHED` with the plan's wording (like `denial-messages.ts` does
 * for permission denials).
 */
export function planLimitMessagesPlugin(limits: MemberLimits) {
  return {
    id: 'formgate-plan-limit-messages',
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path?.startsWith('/organization/') ?? false,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!isAPIError(returned) || returned.statusCode !== 403) return;
            if ((returned.body as { code?: string } | undefined)?.code !== 'ORGANIZATION_MEMBERSHIP_LIMIT_REACHED')
              return;
            const body = (ctx.body ?? {}) as { organizationId?: unknown; invitationId?: unknown };
            let orgId = typeof body.organizationId === 'string' ? body.organizationId : undefined;
            if (!orgId && typeof body.invitationId === 'string') {
              const [invitation] = await ctx.context.adapter
                .findMany<{ organizationId: string }>({
                  model: 'invitation',
                  where: [{ field: 'id', value: body.invitationId }],
                })
                .catch(() => []);
              orgId = invitation?.organizationId;
            }
            if (!orgId) return;
            const max = await limits.planOf(orgId).then(
              (p) => p.limits.members,
              () => null,
            );
            if (max !== null) throw limitReached(max);
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
