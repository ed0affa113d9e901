import { createSignedTokens, type SigningSecret } from '@formgate/kit';
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
export function createVerificationTokens(secret: SigningSecret) {
  const tokens = createSignedTokens(secret, 'notification-email', 'verification link');
  return {
    sign(grant: Omit<VerificationGrant, 'exp'>, nowMs: number): string {
      const exp = Math.floor(nowMs / 1000) + VERIFICATION_TTL_SECONDS;
      return tokens.sign([grant.orgId, grant.addressId, grant.email, exp]);
    },
    /** The grant of a genuine, unexpired token; `null` otherwise (never says which). */
    verify(token: string, nowMs: number): VerificationGrant | null {
      const parsed = GrantSchema.safeParse(tokens.open(token, MAX_TOKEN_LENGTH));
      if (!parsed.success) return null;
      const [orgId, addressId, email, exp] = parsed.data;
      if (exp * 1000 <= nowMs) return null;
      return { orgId, addressId, email, exp };
    },
  };
}
export type VerificationTokens = ReturnType<typeof createVerificationTokens>;
