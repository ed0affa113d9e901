import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** How long a verification link works. */
export const VERIFICATION_TTL_SECONDS = 24 * 60 * 60;
const MAX_TOKEN_LENGTH = 2_000;

/** What a verification link proves: this address of this organization may be verified, until `exp` (Unix s). */
export interface VerificationGrant {
  orgId: string;
  addressId: string;
  email: string;
  exp: number;
}

const GrantSchema = z.tuple([z.string(), z.string(), z.string(), z.number().int()]);

/**
 * Signed, expiring verification links: `base64url(JSON [orgId, addressId, email, exp]).base64url(HMAC-SHA256(secret,
 * "notification-email." + payload))`, compared in constant time. The domain prefix keeps a token of another
 * feature signed with the same secret from passing here.
 */
export function createVerificationTokens(secret: string) {
  if (secret.length < 32) throw new Error('the verification link secret must be at least 32 characters');
  const mac = (payload: string) => createHmac('sha256', secret).update(`notification-email.${payload}`).digest();
  return {
    sign(grant: Omit<VerificationGrant, 'exp'>, nowMs: number): string {
      const exp = Math.floor(nowMs / 1000) + VERIFICATION_TTL_SECONDS;
      const payload = Buffer.from(JSON.stringify([grant.orgId, grant.addressId, grant.email, exp])).toString(
        'base64url',
      );
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    /** The grant of a genuine, unexpired token; `null` otherwise (never says which). */
    verify(token: string, nowMs: number): VerificationGrant | null {
      if (token.length > MAX_TOKEN_LENGTH) return null;
      const [payload, signature, ...rest] = token.split('.');
      if (!payload || !signature || rest.length > 0) return null;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let parsed: z.infer<typeof GrantSchema>;
      try {
        parsed = GrantSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      } catch {
        return null;
      }
      const [orgId, addressId, email, exp] = parsed;
      if (exp * 1000 <= nowMs) return null;
      return { orgId, addressId, email, exp };
    },
  };
}
export type VerificationTokens = ReturnType<typeof createVerificationTokens>;
