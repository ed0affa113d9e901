/**
 * When the next attempt of a delivery happens. Generic over the channel: webhooks use `WEBHOOK_RETRY_DELAYS_MS`, an
 * email variant can build its own with `createRetrySchedule`.
 */

/** The delay before each attempt, the first one included: attempt 1 is immediate, attempt 8 the last. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** ±10 %: retries of many deliveries that failed together spread out instead of arriving together. */
export const DEFAULT_RETRY_JITTER = 0.1;

/**
 * `(attemptsMade, random?)` → milliseconds to wait before the next attempt, or `null` when the schedule is exhausted
 * (that many attempts were made: the delivery has failed for good). `random` returns a number in [0, 1), like
 * `Math.random`; the delay is scaled by a factor in [1 - jitter, 1 + jitter]. No jitter on a zero delay.
 */
export type RetrySchedule = (attemptsMade: number, random?: () => number) => number | null;

export function createRetrySchedule(delaysMs: readonly number[], options: { jitter?: number } = {}): RetrySchedule {
  const jitter = options.jitter ?? DEFAULT_RETRY_JITTER;
  if (!(jitter >= 0 && jitter < 1)) throw new RangeError('jitter must be in [0, 1)');
  if (delaysMs.some((delay) => !Number.isFinite(delay) || delay < 0)) throw new RangeError('delays must be >= 0');
  return (attemptsMade, random = Math.random) => {
    if (!Number.isInteger(attemptsMade) || attemptsMade < 0) {
      throw new RangeError(`attemptsMade must be a non-negative integer, got ${attemptsMade}`);
    }
    const base = delaysMs[attemptsMade];
    if (base === undefined) return null;
    return Math.round(base * (1 + (random() * 2 - 1) * jitter));
  };
}

/**
 * The webhook schedule: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 %), 8 attempts in all.
 * `nextRetryDelayMs(0)` is 0 (the first attempt), `nextRetryDelayMs(1)` ≈ 5 s, …, `nextRetryDelayMs(8)` is `null`.
 */
export const nextRetryDelayMs: RetrySchedule = createRetrySchedule(WEBHOOK_RETRY_DELAYS_MS);

/** How many attempts a schedule allows in all. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length;
