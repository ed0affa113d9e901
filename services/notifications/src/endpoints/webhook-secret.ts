import { randomBytes } from 'node:crypto';

/** An endpoint's signing secret (Standard Webhooks): `whsec_` + base64 of its key's bytes. */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. Shown to the user once; a secret, never logged. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** Whether a string is a signing secret this module accepts: `whsec_` + base64 of 24 to 64 bytes. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(SECRET_PREFIX)) return false;
  const encoded = value.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= MIN_SECRET_BYTES && bytes <= MAX_SECRET_BYTES;
}
