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
  findMany<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T[]>;
}

const CHANGES = new Set(['/sso/register', '/sso/update-provider', '/sso/verify-domain', '/sso/delete-provider']);
const isCallback = (path: string | undefined) =>
  !!path && (path.startsWith('/sso/callback') || path.startsWith('/sso/saml2/sp/acs'));

/**
 * Single sign-on in the audit log (issue 32), after better-auth's endpoint answered:
 * - a sign-in through an identity provider (`/sso/callback/…`, answered by a redirect): `user.signed-in` with
 *   method `sso` in every organization of the user, the one the provider just added them to included;
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
          matcher: (ctx) => CHANGES.has(ctx.path ?? '') || isCallback(ctx.path),
          handler: createAuthMiddleware(async (ctx) => {
            const adapter = ctx.context.adapter as unknown as EventAdapter;
            const providerId = (ctx.body as { providerId?: unknown } | undefined)?.providerId;
            const removed = typeof providerId === 'string' ? removing.get(providerId) : undefined;
            if (typeof providerId === 'string') removing.delete(providerId);
            const returned = ctx.context.returned;
            // The callback answers with a redirect (an APIError of status 302) whether it worked or not.
            const failed = isAPIError(returned) && (returned as { statusCode: number }).statusCode >= 400;
            try {
              if (isCallback(ctx.path)) {
                const user = ctx.context.newSession?.user as User | undefined;
                if (!user) return;
                const members = await adapter.findMany<{ organizationId: string }>({
                  model: 'member',
                  where: [{ field: 'userId', value: user.id }],
                });
                for (const orgId of new Set(members.map((m) => m.organizationId)))
                  await deps.record('user.signed-in', {
                    orgId,
                    actor: { userId: user.id, email: user.email },
                    userId: user.id,
                    email: user.email,
                    method: 'sso',
                  });
                return;
              }
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
