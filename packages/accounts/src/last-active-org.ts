import type { Logger } from '@formgate/kit';
import { getCurrentAdapter } from 'better-auth';

/** The user column that remembers the organization their sessions last had active. */
export const LAST_ACTIVE_ORG_FIELD = 'lastActiveOrganizationId';

interface HookAdapter {
  findOne<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
  update<T>(q: {
    model: string;
    where: { field: string; value: string }[];
    update: Record<string, unknown>;
  }): Promise<T>;
}
type HookContext = { context: { adapter: unknown } } | null | undefined;
/**
 * The adapter of the transaction the hook runs in, if any (a single sign-on creates its user and session in one):
 * on SQLite a call outside it would wait for the transaction's connection forever.
 */
const adapterOf = async (ctx: HookContext) =>
  ctx ? ((await getCurrentAdapter(ctx.context.adapter as never)) as unknown as HookAdapter) : undefined;

/**
 * A new session (sign-in, verification link, password reset) resumes the organization the user last had active,
 * if they are still a member of it; otherwise it starts without one and the dashboard sends them to /onboard
 * (spec §2), as for a user with no organization yet. Remembered on the user whenever a session's active
 * organization is set. Neither hook ever fails the sign-in or the switch: at worst the user picks on /onboard.
 */
export function lastActiveOrganizationHooks(logger: Logger) {
  return {
    create: {
      before: async (session: { userId: string; activeOrganizationId?: string | null }, ctx: HookContext) => {
        const adapter = await adapterOf(ctx);
        if (session.activeOrganizationId || !adapter) return;
        try {
          const user = await adapter.findOne<Record<string, unknown>>({
            model: 'user',
            where: [{ field: 'id', value: session.userId }],
          });
          const orgId = user?.[LAST_ACTIVE_ORG_FIELD];
          if (typeof orgId !== 'string' || !orgId) return;
          const member = await adapter.findOne({
            model: 'member',
            where: [
              { field: 'userId', value: session.userId },
              { field: 'organizationId', value: orgId },
            ],
          });
          if (member) return { data: { ...session, activeOrganizationId: orgId } };
        } catch (err) {
          logger.warn({ err }, 'last active organization not resumed');
        }
      },
    },
    update: {
      after: async (session: { userId?: string; activeOrganizationId?: string | null }, ctx: HookContext) => {
        const adapter = await adapterOf(ctx);
        if (!session.userId || !session.activeOrganizationId || !adapter) return;
        await adapter
          .update({
            model: 'user',
            where: [{ field: 'id', value: session.userId }],
            update: { [LAST_ACTIVE_ORG_FIELD]: session.activeOrganizationId },
          })
          .catch((err: unknown) => logger.warn({ err }, 'last active organization not remembered'));
      },
    },
  };
}
