/**
 * When each attempt of a delivery is made, after the first (immediately): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h —
 * eight attempts in all, each wait jittered by ±10 %. (`src/webhooks` has its own schedule for webhooks; this one
 * is the email channel's until they are merged into one.)
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** Attempts a delivery gets before it is `failed` for good. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The wait after attempt `attempt` (1-based) failed temporarily, or null when it was the last one. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.9 + 0.2 * random()));
}
