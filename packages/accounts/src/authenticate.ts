import type { IncomingMessage } from 'node:http';
import { fromNodeHeaders } from 'better-auth/node';
import { API_KEY_PREFIX, type Auth } from './create-auth.ts';

export type ApiKeyScope = 'read' | 'write';

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

/**
 * Resolves an organization API key (`X-Api-Key` or `Authorization: Bearer fg_…`) or else the better-auth session
 * cookie, plus the caller's role in the session's active organization. `null` when neither is valid.
 */
export function createAuthenticator(auth: Auth): Authenticator {
  const context = auth.$context;
  return async (req) => {
    const key = presentedKey(req);
    if (key !== undefined) {
      const result = await auth.api.verifyApiKey({ body: { key } });
      if (!result.valid || !result.key) return null;
      const scope: ApiKeyScope = result.key.permissions?.formgate?.includes('write') ? 'write' : 'read';
      return {
        via: 'api-key',
        keyId: result.key.id,
        orgId: result.key.referenceId,
        scope,
        roles: [ROLE_OF_SCOPE[scope]],
      };
    }
    const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
    if (!session) return null;
    const { user } = session;
    const orgId = (session.session as { activeOrganizationId?: string | null }).activeOrganizationId ?? null;
    const member = orgId
      ? await (await context).adapter.findOne<{ role: string }>({
          model: 'member',
          where: [
            { field: 'organizationId', value: orgId },
            { field: 'userId', value: user.id },
          ],
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
      roles: member ? member.role.split(',').map((r) => r.trim()) : [],
    };
  };
}
