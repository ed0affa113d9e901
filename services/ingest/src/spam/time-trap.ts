import type { Form, SpamReason } from '@formgate/contracts';
import { createSignedTokens } from '@formgate/kit';
import type { AfterBodyLayer, LayerFinding, SpamSubmission } from './layer.ts';

/** The reserved field that carries the signed render timestamp (removed from the submission's data). */
export const TIME_TRAP_FIELD = '_formgate_ts';
/** A timestamp older than this is stale (`expired`): a page left open a day is re-rendered, a harvested one dies. */
export const TIME_TRAP_MAX_AGE_SECONDS = 24 * 60 * 60;
/** Clock skew tolerated between ingest instances (a timestamp from the future by more is `forged`). */
const MAX_SKEW_MS = 5_000;
const MAX_TOKEN_LENGTH = 300;

interface Stamp {
  /** The form's id. */
  f: string;
  /** When it was issued (ms since the epoch). */
  t: number;
}

/**
 * Signed render timestamps: `GET /f/{key}/timestamp` issues one for a form, the page sends it back in
 * `_formgate_ts`. HMAC-SHA256 with the instance secret (`INGEST_SECRET`, shared by every ingest instance) under the
 * purpose `time-trap`, so a token of another feature never passes as one.
 */
export function createTimeStamps(secret: string) {
  const tokens = createSignedTokens(secret, 'time-trap', 'ingest');
  return {
    issue(form: Form, now: Date): string {
      return tokens.sign({ f: form.id, t: now.getTime() } satisfies Stamp);
    },
    /** The issue time of a genuine token for this form, or undefined. */
    open(form: Form, token: string): number | undefined {
      const stamp = tokens.open(token, MAX_TOKEN_LENGTH) as Partial<Stamp> | undefined;
      if (!stamp || stamp.f !== form.id || typeof stamp.t !== 'number' || !Number.isFinite(stamp.t)) return undefined;
      return stamp.t;
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
