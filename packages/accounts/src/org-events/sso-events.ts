import type { Logger } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware, isAPIError } from 'better-auth/api';
import type { OrgEventRecorder } from './recorder.ts';

interface User {
  id: string;
  email: string;
}
interface ProviderRow {
  providerId: string;
  organizationId?: string | null;
  domain: string;
}
interface EventAdapter {
  findOne<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
}

const CHANGES = new Set(['/sso/register', '/sso/update-provider', '/sso/verify-domain', '/sso/delete-provider']);

/**
 * Single sign-on's configuration in the audit log (issue 32; sign-ins through a provider are `security-events.ts`'s),
 * after better-auth's endpoint answered:
 * - an organization's provider registered, changed, its domain verified, or removed: `sso.provider-*` in that
 *   organization, by the owner or admin who did it. A removal's organization is read before the row is gone.
 * Recording never fails the request it follows; a failure is logged as an error.
 */
export function ssoEventsPlugin(deps: { record: OrgEventRecorder; logger: Logger }) {
  /** The organization of each provider being removed, between the before and the after hook. */
  const removing = new Map<string, ProviderRow>();
  const providerRow = (adapter: EventAdapter, providerId: string) =>
    adapter.findOne<ProviderRow>({ model: 'ssoProvider', where: [{ field: 'providerId', value: providerId }] });
  return {
    id: 'formgate-sso-events',
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === '/sso/delete-provider',
          handler: createAuthMiddleware(async (ctx) => {
            const providerId = (ctx.body as { providerId?: unknown } | undefined)?.providerId;
            if (typeof providerId !== 'string') return;
            const row = await providerRow(ctx.context.adapter as unknown as EventAdapter, providerId);
            if (row) removing.set(providerId, row);
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => CHANGES.has(ctx.path ?? ''),
          handler: createAuthMiddleware(async (ctx) => {
            const adapter = ctx.context.adapter as unknown as EventAdapter;
            const providerId = (ctx.body as { providerId?: unknown } | undefined)?.providerId;
            const removed = typeof providerId === 'string' ? removing.get(providerId) : undefined;
            if (typeof providerId === 'string') removing.delete(providerId);
            const failed = isAPIError(ctx.context.returned);
            try {
              const user = ctx.context.session?.user as User | undefined;
              if (failed || !user || typeof providerId !== 'string') return;
              const actor = { userId: user.id, email: user.email };
              if (ctx.path === '/sso/delete-provider') {
                if (removed?.organizationId)
                  await deps.record('sso.provider-removed', {
                    orgId: removed.organizationId,
                    actor,
                    providerId,
                    domain: removed.domain,
                  });
                return;
              }
              const row = await providerRow(adapter, providerId);
              if (!row?.organizationId) return;
              const type =
                ctx.path === '/sso/register'
                  ? 'sso.provider-registered'
                  : ctx.path === '/sso/verify-domain'
                    ? 'sso.domain-verified'
                    : 'sso.provider-updated';
              await deps.record(type, { orgId: row.organizationId, actor, providerId, domain: row.domain });
            } catch (err) {
              deps.logger.error(
                { err, path: ctx.path },
                'a single sign-on event could not be recorded for the audit log',
              );
            }
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
