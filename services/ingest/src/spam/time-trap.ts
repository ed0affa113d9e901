import type { Form, SpamReason } from '@formgate/contracts';
import { boundedMap, hmacSha256, type SigningSecret, signingKeys } from '@formgate/kit';
import type { AfterBodyLayer, LayerFinding, SpamSubmission } from './layer.ts';

/** The reserved field that carries the signed render timestamp (removed from the submission's data). */
export const TIME_TRAP_FIELD = '_formgate_ts';
/** A timestamp older than this is stale (`expired`): a page left open a day is re-rendered, a harvested one dies. */
export const TIME_TRAP_MAX_AGE_SECONDS = 24 * 60 * 60;
/**
 * Stamps are issued for the 100 ms window a page was rendered in (its start): every page of a form rendered in the
 * same window carries the same stamp, so a busy form's stamps repeat and their MACs are computed once per window
 * (`createTimeStamps`). A submission's age is therefore read up to 0.1 s long: the trap's minimum is whole seconds.
 */
export const TIME_TRAP_WINDOW_MS = 100;
/** Clock skew tolerated between ingest instances (a timestamp from the future by more is `forged`). */
const MAX_SKEW_MS = 5_000;
const MAX_TOKEN_LENGTH = 300;
/** `<issued>` is at most 11 base-36 digits (a safe integer; the year 2026 needs 9). */
const MAX_ISSUED_DIGITS = 11;

/** A stamp's MAC: the first 16 bytes (128 bits) of the HMAC, base64url (22 characters, canonical spelling only). */
const MAC_BYTES = 16;
const MAC_CHARS = 22;
/** MACs remembered per (form, window): ~17 minutes of one form's windows (~1.5 MB). */
const REMEMBERED_MACS = 10_000;

/** Equal strings of equal length, in time that depends on the length only (no early exit). */
function sameChars(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Signed render timestamps: `GET /f/{key}/timestamp` issues one for a form, the page sends it back in
 * `_formgate_ts`. A stamp is `<issued ms, base 36>.<mac>`, the MAC an HMAC-SHA256 with the instance secret
 * (`INGEST_SECRET`, shared by every ingest instance) over `time-trap.<form id>.<issued>`: bound to the form without
 * carrying its id. The time-trap runs on every submission (P1s): a stamp is checked with no decoding, against the
 * MAC of its (form, issued) pair, remembered (`REMEMBERED_MACS`) once this instance issued the pair or saw a genuine
 * stamp of it — never for a stamp that failed, so made-up pairs cost an HMAC each and evict nothing. During a
 * rotation (ADR 50) a stamp the current secret does not match is checked once more with the previous one (not
 * remembered: rotations are rare and short). `remembered` takes the memo's size (tests).
 */
export function createTimeStamps(secret: SigningSecret, remembered = REMEMBERED_MACS) {
  const { current, previous } = signingKeys(secret, 'ingest');
  const hmac = hmacSha256(Buffer.from(current, 'utf8'));
  const previousHmac = previous === undefined ? undefined : hmacSha256(Buffer.from(previous, 'utf8'));
  /** `formAndIssued` = `<form id>.<issued>` → its MAC. */
  const macs = boundedMap<string>(remembered);
  const macOf = (formAndIssued: string) =>
    hmac(`time-trap.${formAndIssued}`).subarray(0, MAC_BYTES).toString('base64url');
  const previousMacOf = (formAndIssued: string) =>
    previousHmac?.(`time-trap.${formAndIssued}`).subarray(0, MAC_BYTES).toString('base64url');
  return {
    issue(form: Form, now: Date): string {
      const ms = now.getTime();
      const issued = (ms - (ms % TIME_TRAP_WINDOW_MS)).toString(36);
      const formAndIssued = `${form.id}.${issued}`;
      const mac = macs.get(formAndIssued) ?? macOf(formAndIssued);
      macs.set(formAndIssued, mac);
      return `${issued}.${mac}`;
    },
    /** The issue time of a genuine token for this form, or undefined. */
    open(form: Form, token: string): number | undefined {
      if (token.length > MAX_TOKEN_LENGTH) return undefined;
      const dot = token.indexOf('.');
      if (dot < 1 || dot > MAX_ISSUED_DIGITS || token.length - dot - 1 !== MAC_CHARS) return undefined;
      const text = token.slice(0, dot);
      const issued = Number.parseInt(text, 36);
      // Only the canonical spelling (lower case, no sign or leading zero): the one `issue` writes.
      if (!Number.isSafeInteger(issued) || issued < 0 || issued.toString(36) !== text) return undefined;
      const given = token.slice(dot + 1);
      const formAndIssued = `${form.id}.${text}`;
      const known = macs.get(formAndIssued);
      const mac = known ?? macOf(formAndIssued);
      if (sameChars(given, mac)) {
        if (known === undefined) macs.set(formAndIssued, mac);
        return issued;
      }
      const previousMac = previousMacOf(formAndIssued);
      return previousMac !== undefined && sameChars(given, previousMac) ? issued : undefined;
    },
    /** (form, window) pairs whose MAC is remembered (tests). */
    get rememberedMacs() {
      return macs.size;
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
