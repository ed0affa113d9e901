import { authorize, type PermissionRequest } from '@formgate/contracts';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx, isAPIError } from 'better-auth/api';

/**
 * The organization plugin's permission denials (by error code) and the access-model permission each one checks,
 * as better-auth 1.7's organization routes check them.
 */
const DENIALS: Record<string, PermissionRequest> = {
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: { organization: ['update'] },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: { organization: ['delete'] },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: { invitation: ['create'] },
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: { invitation: ['cancel'] },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: { member: ['update'] },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: { member: ['delete'] },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION: { team: ['create'] },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM: { team: ['create'] },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: { team: ['update'] },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION: { team: ['delete'] },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: { team: ['delete'] },
};

/**
 * Spec §6 has three denial messages, and Formgate's own routes answer with them (`authorize`). better-auth's
 * organization routes word theirs per endpoint ("You are not allowed to update this organization"). This plugin
 * rewrites the message of such a 403 to the spec's, from the caller's roles in that organization, keeping
 * better-auth's `code`. A 403 for another reason (e.g. an admin touching the owner) keeps its own message.
 */
export function specDenialMessagesPlugin() {
  return {
    id: 'formgate-spec-denial-messages',
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path?.startsWith('/organization/') ?? false,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!isAPIError(returned) || returned.statusCode !== 403) return;
            const code = (returned.body as { code?: string } | undefined)?.code;
            const permission = code ? DENIALS[code] : undefined;
            if (!code || !permission) return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (!session) return;
            const body = (ctx.body ?? {}) as { organizationId?: unknown };
            const orgId =
              typeof body.organizationId === 'string'
                ? body.organizationId
                : (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
            // Should the lookup fail, the caller keeps better-auth's own 403, never a 500.
            const member = orgId
              ? await ctx.context.adapter
                  .findOne<{ role: string }>({
                    model: 'member',
                    where: [
                      { field: 'organizationId', value: orgId },
                      { field: 'userId', value: session.user.id },
                    ],
                  })
                  .catch(() => undefined)
              : null;
            if (member === undefined) return;
            const verdict = authorize(member ? member.role.split(',') : [], permission);
            if (verdict.success) return;
            throw new APIError('FORBIDDEN', { code, message: verdict.error });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
