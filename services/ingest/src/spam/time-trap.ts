import { timingSafeEqual } from 'node:crypto';
import type { Form, SpamReason } from '@formgate/contracts';
import { hmacSha256, type SigningSecret, signingKeys } from '@formgate/kit';
import type { AfterBodyLayer, LayerFinding, SpamSubmission } from './layer.ts';

/** The reserved field that carries the signed render timestamp (removed from the submission's data). */
export const TIME_TRAP_FIELD = '_formgate_ts';
/** A timestamp older than this is stale (`expired`): a page left open a day is re-rendered, a harvested one dies. */
export const TIME_TRAP_MAX_AGE_SECONDS = 24 * 60 * 60;
/** Clock skew tolerated between ingest instances (a timestamp from the future by more is `forged`). */
const MAX_SKEW_MS = 5_000;
const MAX_TOKEN_LENGTH = 300;

/** A stamp's MAC: the first 16 bytes (128 bits) of the HMAC, base64url (22 characters, the last one of `AQgw`: its low 4 bits are padding, so only the canonical spelling of a MAC is accepted). */
const MAC_BYTES = 16;
const STAMP = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{21}[AQgw])$/;

/**
 * Signed render timestamps: `GET /f/{key}/timestamp` issues one for a form, the page sends it back in
 * `_formgate_ts`. A stamp is `<issued ms, base 36>.<mac>`, the MAC an HMAC-SHA256 with the instance secret
 * (`INGEST_SECRET`, shared by every ingest instance) over `time-trap.<form id>.<issued>`: bound to the form without
 * carrying its id, and checked with no JSON or base64 decoding (the time-trap runs on every submission, P1s).
 * During a rotation (ADR 50) a stamp the current secret does not match is checked once more with the previous one.
 */
export function createTimeStamps(secret: SigningSecret) {
  const { current, previous } = signingKeys(secret, 'ingest');
  const hmac = hmacSha256(Buffer.from(current, 'utf8'));
  const previousHmac = previous === undefined ? undefined : hmacSha256(Buffer.from(previous, 'utf8'));
  const macBytesOf = (formId: string, issued: string) => hmac(`time-trap.${formId}.${issued}`).subarray(0, MAC_BYTES);
  const macOf = (formId: string, issued: string) => macBytesOf(formId, issued).toString('base64url');
  return {
    issue(form: Form, now: Date): string {
      const issued = now.getTime().toString(36);
      return `${issued}.${macOf(form.id, issued)}`;
    },
    /** The issue time of a genuine token for this form, or undefined. */
    open(form: Form, token: string): number | undefined {
      const m = token.length <= MAX_TOKEN_LENGTH ? STAMP.exec(token) : null;
      if (!m?.[1] || !m[2]) return undefined;
      // The given MAC decoded (22 base64url characters are exactly 16 bytes) against the HMAC's first 16 bytes.
      const given = Buffer.from(m[2], 'base64url');
      const expected = macBytesOf(form.id, m[1]);
      if (given.length !== MAC_BYTES) return undefined;
      if (
        !timingSafeEqual(given, expected) &&
        !(previousHmac && timingSafeEqual(given, previousHmac(`time-trap.${form.id}.${m[1]}`).subarray(0, MAC_BYTES)))
      ) {
        return undefined;
      }
      const issued = Number.parseInt(m[1], 36);
      return Number.isSafeInteger(issued) ? issued : undefined;
    },
  };
}
export type TimeStamps = ReturnType<typeof createTimeStamps>;

const reason = (rule: string, detail: string): SpamReason => ({ layer: 'time-trap', rule, detail });

/**
 * Time-trap (after the body): active when `timeTrapSeconds > 0`. Flags, with one rule each: `missing` (no
 * `_formgate_ts`), `forged` (not signed by us, for another form, or from the future), `too-fast` (sent sooner than
 * `timeTrapSeconds` after it was issued), `expired` (issued more than 24 h ago). Never blocks.
 */
export function createTimeTrapLayer(
  stamps: TimeStamps,
): Omit<AfterBodyLayer, 'check'> & { check(input: SpamSubmission): LayerFinding } {
  return {
    name: 'time-trap',
    phase: 'after-body',
    check({ form, settings, reserved, now }): LayerFinding {
      const min = settings.timeTrapSeconds;
      if (min <= 0) return { verdict: 'pass' };
      const token = reserved[TIME_TRAP_FIELD];
      if (token === undefined || token.trim() === '') {
        return { verdict: 'flag', reasons: [reason('missing', `no ${TIME_TRAP_FIELD} timestamp`)] };
      }
      const issued = stamps.open(form, token.trim());
      const age = issued === undefined ? Number.NaN : now.getTime() - issued;
      if (issued === undefined || age < -MAX_SKEW_MS) {
        return { verdict: 'flag', reasons: [reason('forged', 'the timestamp is not one this form issued')] };
      }
      if (age < min * 1000) {
        const seconds = (Math.max(age, 0) / 1000).toFixed(1);
        return {
          verdict: 'flag',
          reasons: [reason('too-fast', `sent ${seconds} s after rendering (minimum ${min} s)`)],
        };
      }
      if (age > TIME_TRAP_MAX_AGE_SECONDS * 1000) {
        return { verdict: 'flag', reasons: [reason('expired', 'the timestamp is older than 24 h')] };
      }
      return { verdict: 'pass' };
    },
  };
}
