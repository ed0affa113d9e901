import { hash, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-signed tokens for links that need no session: `base64url(JSON payload).base64url(HMAC-SHA256(secret,
 * purpose + "." + payload))`, compared in constant time. The purpose prefix keeps a token of one feature from
 * passing as another's when they share a secret. Callers validate the opened payload with their own schema
 * (expiry included): `open` only says it is genuine.
 */
export function createSignedTokens(secret: SigningSecret, purpose: string, what = 'token') {
  const { current, previous } = signingKeys(secret, what);
  const hmac = hmacSha256(Buffer.from(current, 'utf8'));
  const previousHmac = previous === undefined ? undefined : hmacSha256(Buffer.from(previous, 'utf8'));
  const mac = (payload: string) => hmac(`${purpose}.${payload}`);
  const matches = (given: Buffer, expected: Buffer) =>
    given.length === expected.length && timingSafeEqual(given, expected);
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
      // The current secret first; the previous one (during a rotation) only when that fails.
      if (!matches(given, mac(payload)) && !(previousHmac && matches(given, previousHmac(`${purpose}.${payload}`)))) {
        return undefined;
      }
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * A signing secret: a string, or during a rotation (ADR 50) the current value and the one it replaced. Everything is
 * signed with `current`; `previous` only verifies what was signed before the rotation, until the operator removes
 * it (`<NAME>_PREVIOUS` in distributed mode, `DATA_DIR/<name>.previous` in embedded mode).
 */
export type SigningSecret = string | { current: string; previous?: string | undefined };

/** The current and previous values of a signing secret, each checked to be 32+ characters. */
export function signingKeys(secret: SigningSecret, what = 'signing'): { current: string; previous?: string } {
  const { current, previous } = typeof secret === 'string' ? { current: secret, previous: undefined } : secret;
  if (current.length < 32) throw new Error(`the ${what} secret must be at least 32 characters`);
  if (previous !== undefined && previous.length < 32) {
    throw new Error(`the previous ${what} secret must be at least 32 characters`);
  }
  return previous === undefined || previous === current ? { current } : { current, previous };
}

const BLOCK = 64;
/**
 * HMAC-SHA256 (RFC 2104) over `${purpose}.${payload}`-style strings with two one-shot `crypto.hash` calls: the same
 * bytes as `createHmac('sha256', key)`, without a stream object per call. Tokens are checked on the ingest hot path
 * (the time-trap, P1s), where `createHmac` cost ~20 µs a call under async hooks against ~6 µs for this.
 */
export function hmacSha256(key: Buffer): (message: string) => Buffer {
  const k = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i] = (k[i] as number) ^ 0x36;
    outer[i] = (k[i] as number) ^ 0x5c;
  }
  return (message) => {
    const digest = hash('sha256', Buffer.concat([inner, Buffer.from(message, 'utf8')]), 'buffer');
    return hash('sha256', Buffer.concat([outer, digest]), 'buffer');
  };
}
