import { authorize, type PermissionRequest } from '@formgate/contracts';
import type { NextFunction, Request, Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { forbidden, unauthenticated } from './errors.ts';
import { type SigningSecret, signingKeys } from './signed-tokens.ts';

/** The header that carries the gateway-signed identity to a service. Clients' copies are stripped at the gateway. */
export const IDENTITY_HEADER = 'x-formgate-identity';

export const IdentitySchema = z.object({
  userId: z.string(),
  email: z.string().nullable(),
  /** The organization every store call of this request is scoped to. */
  orgId: z.string(),
  roles: z.array(z.string()),
  /** How the caller authenticated: a browser session or an organization API key (`userId` is then the key's id). */
  via: z.enum(['session', 'api-key']),
});
export type Identity = z.infer<typeof IdentitySchema>;

/**
 * The role of the identity the gateway signs for the deployment's operator (its operator API calling a service's
 * `/internal/*` route): no member of an organization ever has it.
 */
export const OPERATOR_ROLE = 'operator';

const ISSUER = 'formgate-gateway';
const AUDIENCE = 'formgate-services';

export interface IdentitySigner {
  sign(identity: Identity): Promise<string>;
}
export interface IdentityVerifier {
  /** Resolves the identity, or throws `UNAUTHENTICATED` for a missing, forged, expired or tampered token. */
  verify(token: string | undefined): Promise<Identity>;
}

/**
 * Signs with the current secret; verifies with it, then (during a rotation, ADR 50) with the previous one: tokens
 * live `ttlSeconds`, so the previous secret is needed only while the gateways roll, plus a minute.
 */
export function createIdentityCodec(secret: SigningSecret, ttlSeconds = 60): IdentitySigner & IdentityVerifier {
  const { current, previous } = signingKeys(secret, 'identity');
  const key = new TextEncoder().encode(current);
  const keys = previous === undefined ? [key] : [key, new TextEncoder().encode(previous)];
  const options = { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] };
  return {
    async sign(identity) {
      return new SignJWT({ idn: identity })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key);
    },
    async verify(token) {
      if (!token) throw unauthenticated();
      for (const k of keys) {
        try {
          const { payload } = await jwtVerify(token, k, options);
          return IdentitySchema.parse(payload.idn);
        } catch {
          // the next key, if any
        }
      }
      throw unauthenticated();
    },
  };
}

declare global {
  namespace Express {
    interface Request {
      identity?: Identity;
      requestId?: string;
      /** Set by the gateway: the signed identity it forwards. */
      identityToken?: string;
    }
  }
}

/** Express middleware: trusts only a valid gateway-signed token; everything else is 401. */
export function requireIdentity(verifier: IdentityVerifier) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers[IDENTITY_HEADER];
    verifier.verify(typeof header === 'string' ? header : undefined).then(
      (identity) => {
        req.identity = identity;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** The identity of a request that passed `requireIdentity`. */
export function identityOf(req: Request): Identity {
  if (!req.identity) throw unauthenticated();
  return req.identity;
}

/**
 * Throws `FORBIDDEN` (403) unless one of the caller's roles grants every requested action, with the access
 * model's own message ("You are not allowed to access resource: form", …).
 */
export function requirePermission(identity: Identity, request: PermissionRequest): void {
  const result = authorize(identity.roles, request);
  if (!result.success) throw forbidden(result.error);
}
