import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * An implementation of Standard Webhooks verification written from the spec
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md), independent of the
 * `standardwebhooks` package the sender uses: HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed with the
 * base64-decoded part of the secret after `whsec_`, base64-encoded, sent as space-separated `v1,<signature>` entries.
 */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The `v1` signatures of a `webhook-signature` header, in order. */
export function v1Signatures(header: string): string[] {
  return header
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, signature]) => signature ?? '');
}

/** Received (or produced) headers, by lower-case name. */
export type SignedHeaders = Record<string, string | string[] | undefined>;

/** Whether one of the header's `v1` signatures is `secret`'s signature of `body` (constant-time comparison). */
export function verifiesWith(secret: string, headers: SignedHeaders, body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const expected = Buffer.from(expectedSignature(secret, id, timestamp, body));
  return v1Signatures(String(headers['webhook-signature'] ?? '')).some((signature) => {
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
