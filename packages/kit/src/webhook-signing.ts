import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * How Formgate signs webhooks, in one place for everything that must sign exactly as deliveries do: the
 * notifications service and `formgate listen` (`@formgate/kit/webhook-signing`).
 */
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

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/) through the `standardwebhooks` package: HMAC-SHA256
 * over `${webhook-id}.${webhook-timestamp}.${body}` keyed with the secret's base64-decoded bytes.
 */

/** The secret replaced by a rotation, still signing until `expiresAt` so receivers can switch without a gap. */
export interface PreviousWebhookSecret {
  secret: string;
  expiresAt: Date | string;
}

export interface SignWebhookInput {
  /**
   * `webhook-id`: the same on every attempt of one delivery (receivers deduplicate on it), e.g. the delivery's id.
   * Must not contain `.` or whitespace (it is part of the signed content).
   */
  msgId: string;
  /** The attempt's time (`webhook-timestamp`, whole seconds); from the caller's clock. */
  timestamp: Date;
  /** The exact body bytes that will be sent. */
  body: string;
  secret: string;
  /** Signs too while `timestamp` is before its `expiresAt`: the header then carries two `v1,` entries. */
  previous?: PreviousWebhookSecret | null;
}

export type WebhookSignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** The three Standard Webhooks headers for one attempt. Throws on a malformed secret or id (a programming error). */
export function signWebhook(input: SignWebhookInput): WebhookSignatureHeaders {
  if (!/^[^\s.]+$/.test(input.msgId)) throw new Error('webhook-id must be non-empty, without dots or whitespace');
  const secrets = [input.secret];
  if (input.previous && new Date(input.previous.expiresAt).getTime() > input.timestamp.getTime()) {
    secrets.push(input.previous.secret);
  }
  const signatures = secrets.map((secret) => {
    if (!isWebhookSecret(secret)) throw new Error('Not a webhook signing secret (whsec_ + base64 of 24-64 bytes)');
    return new Webhook(secret).sign(input.msgId, input.timestamp, input.body);
  });
  return {
    'webhook-id': input.msgId,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
