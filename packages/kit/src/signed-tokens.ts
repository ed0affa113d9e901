import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-signed tokens for links that need no session: `base64url(JSON payload).base64url(HMAC-SHA256(secret,
 * purpose + "." + payload))`, compared in constant time. The purpose prefix keeps a token of one feature from
 * passing as another's when they share a secret. Callers validate the opened payload with their own schema
 * (expiry included): `open` only says it is genuine.
 */
export function createSignedTokens(secret: string, purpose: string, what = 'token') {
  if (secret.length < 32) throw new Error(`the ${what} secret must be at least 32 characters`);
  // A key object made once: HMAC with a string key converts the key on every call (~a quarter of its cost).
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const mac = (payload: string) => createHmac('sha256', key).update(`${purpose}.${payload}`).digest();
  return {
    sign(payload: unknown): string {
      const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${encoded}.${mac(encoded).toString('base64url')}`;
    },
    /** The payload of a genuine token no longer than `maxLength`; `undefined` otherwise (never says why). */
    open(token: string, maxLength: number): unknown {
      if (token.length > maxLength) return undefined;
      const [payload, signature, ...rest] = token.split('.');
      if (!payload || !signature || rest.length > 0) return undefined;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
    },
  };
}
