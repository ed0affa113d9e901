import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs } from '../src/deliveries/retry-schedule.ts';

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after attempts 1–7, then gives up', () => {
    const middle = () => 0.5;
    expect(Array.from({ length: 8 }, (_, i) => retryDelayMs(i + 1, middle))).toEqual([
      5_000,
      300_000,
      1_800_000,
      7_200_000,
      18_000_000,
      36_000_000,
      36_000_000,
      null,
    ]);
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it('jitters each wait by at most ±10 %', () => {
    expect(retryDelayMs(1, () => 0)).toBe(4_500);
    expect(retryDelayMs(1, () => 0.999_999)).toBe(5_500);
    expect(retryDelayMs(2, () => 0)).toBe(270_000);
    const seen = new Set(Array.from({ length: 50 }, () => retryDelayMs(3)));
    expect(seen.size).toBeGreaterThan(1);
    for (const d of seen) expect(d).toBeGreaterThanOrEqual(1_620_000);
    for (const d of seen) expect(d).toBeLessThanOrEqual(1_980_000);
  });
});
