import type { DeliveryChannel as DeliveryChannelKind } from '@formgate/contracts';

/**
 * When each attempt of a delivery is made, per channel: the delay before attempt n+1 after attempt n failed
 * temporarily, each jittered by ±`jitter` so that deliveries that failed together do not retry together. Attempt 1
 * is immediate (made by whoever plans the delivery); a delivery has `delaysMs.length + 1` attempts in all.
 */
export interface RetrySchedule {
  delaysMs: readonly number[];
  jitter: number;
}

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 28 hours. */
const EIGHT_ATTEMPTS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** Every channel's schedule. */
export const RETRY_SCHEDULES: Readonly<Record<DeliveryChannelKind, RetrySchedule>> = {
  email: { delaysMs: EIGHT_ATTEMPTS, jitter: 0.1 },
  webhook: { delaysMs: EIGHT_ATTEMPTS, jitter: 0.1 },
};

/** Attempts a delivery on `schedule` gets before it is `failed` for good. */
export const maxAttempts = (schedule: RetrySchedule) => schedule.delaysMs.length + 1;

/**
 * The wait after attempt `attempt` (1-based) failed temporarily, or null when it was the last one. `random` returns a
 * number in [0, 1), like `Math.random`.
 */
export function retryDelayMs(
  schedule: RetrySchedule,
  attempt: number,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const base = schedule.delaysMs[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + (random() * 2 - 1) * schedule.jitter));
}
