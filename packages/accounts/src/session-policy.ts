import type { BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';

/**
 * A changed password signs the account out everywhere else (issue 32), whatever the request asked: whoever knew the
 * old one must not keep a session made with it. better-auth's `/change-password` takes `revokeOtherSessions`; this
 * sets it.
 */
export function sessionPolicyPlugin() {
  return {
    id: 'formgate-session-policy',
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === '/change-password',
          handler: createAuthMiddleware(async (ctx) => ({
            context: { body: { ...(ctx.body as Record<string, unknown>), revokeOtherSessions: true } },
          })),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
