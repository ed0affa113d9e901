import type { IncomingMessage } from 'node:http';
import { AppError } from '@formgate/kit';
import { fromNodeHeaders } from 'better-auth/node';
import { isUnreachable } from './adapter-guard.ts';
import type { ApiKeyScope } from './api-key-cache.ts';
import { API_KEY_PREFIX, type Auth } from './create-auth.ts';
import { SSO_SESSION_FIELD, type UnmetSignInRequirement, unmetSignInRequirement } from './sign-in-policy.ts';
import type { ApiKeyVerifier } from './verify-api-key.ts';

export type { ApiKeyScope } from './api-key-cache.ts';

/** Who is calling, as the gateway resolved it once for this request. */
export type Caller =
  | {
      via: 'session';
      userId: string;
      email: string;
      name: string;
      emailVerified: boolean;
      sessionExpiresAt: Date;
      orgId: string | null;
      roles: string[];
      /**
       * The active organization requires single sign-on or two-factor and this session does not meet it: its
       * routes answer 403 with this code (the user's own routes do not).
       */
      unmetSignInRequirement: UnmetSignInRequirement | null;
    }
  | { via: 'api-key'; keyId: string; orgId: string; scope: ApiKeyScope; roles: string[] };

export type Authenticator = (req: IncomingMessage) => Promise<Caller | null>;

/** The `permissions` an API key is created with, per scope. */
export const API_KEY_SCOPES: Record<ApiKeyScope, Record<string, string[]>> = {
  read: { formgate: ['read'] },
  write: { formgate: ['read', 'write'] },
};
/** A write key acts as an admin of its organization, a read key as a member (read-only). */
const ROLE_OF_SCOPE: Record<ApiKeyScope, string> = { read: 'member', write: 'admin' };

function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header) return header.trim();
  const auth = req.headers.authorization;
  if (auth?.startsWith(`Bearer ${API_KEY_PREFIX}`)) return auth.slice(7).trim();
  return undefined;
}

async function sessionCaller(auth: Auth, req: IncomingMessage): Promise<Caller | null> {
  const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
  if (!session) return null;
  const { user } = session;
  const orgId = (session.session as { activeOrganizationId?: string | null }).activeOrganizationId ?? null;
  const member = orgId
    ? await (await auth.$context).adapter.findOne<{ role: string }>({
        model: 'member',
        where: [
          { field: 'organizationId', value: orgId },
          { field: 'userId', value: user.id },
        ],
      })
    : null;
  const roles = member ? member.role.split(',').map((r) => r.trim()) : [];
  // The organization is read only when its settings could refuse this session (`mayBeRefused`).
  const unmet =
    member && orgId
      ? await unmetSignInRequirement((await auth.$context).adapter, orgId, {
          hasTwoFactor: (user as { twoFactorEnabled?: boolean | null }).twoFactorEnabled === true,
          ssoOrganizationId: (session.session as Record<string, unknown>)[SSO_SESSION_FIELD] as string | null,
          roles,
        })
      : null;
  return {
    via: 'session',
    userId: user.id,
    email: user.email,
    name: user.name,
    emailVerified: user.emailVerified,
    sessionExpiresAt: new Date(session.session.expiresAt),
    orgId: member ? orgId : null,
    roles,
    unmetSignInRequirement: unmet,
  };
}

/** Credentials that could not be checked are never called invalid: 503 `AUTH_UNAVAILABLE`, not 401 or 500. */
export const unavailableAsAppError = (err: unknown) =>
  isUnreachable(err) ? new AppError('AUTH_UNAVAILABLE', undefined, { cause: err }) : err;

/**
 * Resolves an organization API key (`X-Api-Key` or `Authorization: Bearer fg_…`, through `verifyKey` and its
 * cache) or else the better-auth session cookie, plus the caller's role in the session's active organization.
 * `null` when neither is valid; `AUTH_UNAVAILABLE` when the accounts database cannot tell.
 */
export function createAuthenticator(auth: Auth, verifyKey: ApiKeyVerifier): Authenticator {
  return async (req) => {
    try {
      const key = presentedKey(req);
      if (key === undefined) return await sessionCaller(auth, req);
      const verified = await verifyKey(key);
      return (
        verified && {
          via: 'api-key',
          keyId: verified.keyId,
          orgId: verified.orgId,
          scope: verified.scope,
          roles: [ROLE_OF_SCOPE[verified.scope]],
        }
      );
    } catch (err) {
      throw unavailableAsAppError(err);
    }
  };
}
