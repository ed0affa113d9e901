import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Identity } from '@formgate/kit';

const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_ORG_ID = 'default';

/** Resolves who is calling, or `null` when the request carries no valid credentials. */
export type Authenticator = (req: IncomingMessage) => Promise<Identity | null>;

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The operator token (until accounts land): `Authorization: Bearer <token>` acts as owner of the organization
 * named by `X-Formgate-Org` (default `default`). Compared in constant time on digests.
 */
export function operatorAuthenticator(operatorToken: string): Authenticator {
  const expected = digest(operatorToken);
  return async (req) => {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return null;
    if (!timingSafeEqual(digest(header.slice(7).trim()), expected)) return null;
    const org = req.headers['x-formgate-org'];
    const orgId = typeof org === 'string' && ORG_ID.test(org) ? org : DEFAULT_ORG_ID;
    return { userId: 'operator', email: null, orgId, roles: ['owner'], via: 'operator' };
  };
}
