import type { Logger } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware, isAPIError } from 'better-auth/api';
import { isSsoCallbackPath } from '../single-sign-on.ts';
import type { OrgEventRecorder } from './recorder.ts';

type SecurityEventType =
  | 'user.signed-in'
  | 'user.sign-in-failed'
  | 'two-factor.enabled'
  | 'two-factor.disabled'
  | 'two-factor.backup-codes-regenerated'
  | 'passkey.added'
  | 'passkey.removed';

interface User {
  id: string;
  email: string;
}
interface EventAdapter {
  findOne<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T | null>;
  findMany<T>(q: { model: string; where: { field: string; value: string }[] }): Promise<T[]>;
}

const WATCHED = new Set([
  '/sign-in/email',
  '/two-factor/verify-totp',
  '/two-factor/verify-backup-code',
  '/two-factor/disable',
  '/two-factor/generate-backup-codes',
  '/passkey/verify-authentication',
  '/passkey/verify-registration',
  '/passkey/delete-passkey',
]);
/** better-auth's two-factor plugin's challenge cookie (its `TWO_FACTOR_COOKIE_NAME`), set between the two steps. */
const TWO_FACTOR_COOKIE = 'two_factor';

/**
 * A member's security events for the audit log (issue 32): sign-ins, failed sign-ins and two-factor changes, each
 * recorded in every organization the user belongs to (a user with none leaves no entry). Read after better-auth's
 * endpoint answered:
 * - `/sign-in/email`: a session without two-factor is a sign-in by password; 401 (wrong password) of an existing
 *   account a failed one. The two-factor challenge (`twoFactorRedirect`) is neither yet.
 * - `/two-factor/verify-*` with the challenge cookie: the sign-in by two-factor or backup code, or a failed one
 *   (wrong code, locked account). With a session instead, a new session means two-factor was just turned on.
 * - `/two-factor/disable` and `/two-factor/generate-backup-codes`: done.
 * - `/passkey/verify-authentication`: a sign-in by passkey; an SSO callback (`/sso/callback/…`, answered by a redirect)
 *   that created a session: a sign-in by `sso`, in each organization of the user, the one it just joined included; `/passkey/verify-registration` and
 *   `/passkey/delete-passkey`: a passkey added or removed.
 * Recording never fails the request it follows: the outcome has happened already; a failure is logged as an error.
 */
export function securityEventsPlugin(deps: { record: OrgEventRecorder; logger: Logger }) {
  return {
    id: 'formgate-security-events',
    hooks: {
      after: [
        {
          matcher: (ctx) => WATCHED.has(ctx.path ?? '') || isSsoCallbackPath(ctx.path),
          handler: createAuthMiddleware(async (ctx) => {
            const adapter = ctx.context.adapter as unknown as EventAdapter;
            const failed = isAPIError(ctx.context.returned);
            const status = failed ? (ctx.context.returned as { statusCode: number }).statusCode : 200;
            const newUser = ctx.context.newSession?.user as User | undefined;
            const recordFor = async (
              user: User,
              type: SecurityEventType,
              extra: Record<string, string>,
              byUser: boolean,
            ) => {
              const members = await adapter.findMany<{ organizationId: string }>({
                model: 'member',
                where: [{ field: 'userId', value: user.id }],
              });
              const actor = byUser ? { userId: user.id, email: user.email } : null;
              for (const orgId of new Set(members.map((m) => m.organizationId)))
                await deps.record(
                  type as 'user.signed-in',
                  {
                    orgId,
                    actor,
                    userId: user.id,
                    email: user.email,
                    ...extra,
                  } as never,
                );
            };
            const userById = (id: string) =>
              adapter.findOne<User>({ model: 'user', where: [{ field: 'id', value: id }] });
            try {
              if (ctx.path === '/sign-in/email') {
                if (!failed && newUser) await recordFor(newUser, 'user.signed-in', { method: 'password' }, true);
                else if (status === 401) {
                  const email = String((ctx.body as { email?: unknown } | undefined)?.email ?? '').toLowerCase();
                  const user = email
                    ? await adapter.findOne<User>({ model: 'user', where: [{ field: 'email', value: email }] })
                    : null;
                  if (user) await recordFor(user, 'user.sign-in-failed', { reason: 'password' }, false);
                }
                return;
              }
              if (ctx.path === '/two-factor/disable') {
                if (!failed && newUser) await recordFor(newUser, 'two-factor.disabled', {}, true);
                return;
              }
              if (ctx.path === '/passkey/verify-authentication') {
                if (!failed && newUser) await recordFor(newUser, 'user.signed-in', { method: 'passkey' }, true);
                return;
              }
              if (isSsoCallbackPath(ctx.path)) {
                // Redirected either way: a new session is what tells a sign-in.
                if (newUser) await recordFor(newUser, 'user.signed-in', { method: 'sso' }, true);
                return;
              }
              if (ctx.path === '/passkey/verify-registration' || ctx.path === '/passkey/delete-passkey') {
                const user = ctx.context.session?.user as User | undefined;
                if (failed || !user) return;
                if (ctx.path === '/passkey/verify-registration') {
                  const added = ctx.context.returned as { id?: string; name?: string | null } | null;
                  if (added?.id)
                    await recordFor(user, 'passkey.added', { passkeyId: added.id, name: added.name ?? '' }, true);
                } else {
                  const id = (ctx.body as { id?: unknown } | undefined)?.id;
                  if (typeof id === 'string') await recordFor(user, 'passkey.removed', { passkeyId: id }, true);
                }
                return;
              }
              if (ctx.path === '/two-factor/generate-backup-codes') {
                const user = ctx.context.session?.user as User | undefined;
                if (!failed && user) await recordFor(user, 'two-factor.backup-codes-regenerated', {}, true);
                return;
              }
              const challenge = await ctx.getSignedCookie(
                ctx.context.createAuthCookie(TWO_FACTOR_COOKIE).name,
                ctx.context.secret,
              );
              const method = ctx.path === '/two-factor/verify-totp' ? 'two-factor' : 'backup-code';
              if (!challenge) {
                // A signed-in user's code: a new session only when it turned two-factor on.
                if (!failed && newUser && ctx.path === '/two-factor/verify-totp')
                  await recordFor(newUser, 'two-factor.enabled', {}, true);
              } else if (!failed && newUser) await recordFor(newUser, 'user.signed-in', { method }, true);
              else if (status === 401 || status === 429) {
                // The challenge names its user until it is spent.
                const pending = await ctx.context.internalAdapter.findVerificationValue(challenge);
                const user = pending ? await userById(pending.value) : null;
                if (user) await recordFor(user, 'user.sign-in-failed', { reason: 'two-factor' }, false);
              }
            } catch (err) {
              deps.logger.error({ err, path: ctx.path }, 'a security event could not be recorded for the audit log');
            }
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
