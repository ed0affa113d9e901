import { describe, expect, it } from 'vitest';
import { maxAttempts, RETRY_SCHEDULES, retryDelayMs } from '../src/deliveries/retry-schedule.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const nominal = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

describe.each(['email', 'webhook'] as const)('the %s retry schedule', (kind) => {
  const schedule = RETRY_SCHEDULES[kind];

  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after attempts 1–7, then gives up: 8 attempts in all', () => {
    const middle = () => 0.5;
    const delays = Array.from({ length: 8 }, (_, i) => retryDelayMs(schedule, i + 1, middle));
    expect(delays).toEqual([...nominal, null]);
    expect(retryDelayMs(schedule, 20)).toBeNull();
    expect(maxAttempts(schedule)).toBe(8);
  });

  it('spreads each wait by at most ±10 %, reaching both bounds', () => {
    for (const [i, base] of nominal.entries()) {
      expect(retryDelayMs(schedule, i + 1, () => 0)).toBe(Math.round(base * 0.9));
      expect(retryDelayMs(schedule, i + 1, () => 0.999_999_999)).toBe(Math.round(base * 1.1));
    }
  });

  it('stays inside the bounds and actually varies with Math.random', () => {
    const samples = Array.from({ length: 500 }, () => retryDelayMs(schedule, 2) as number);
    for (const delay of samples) {
      expect(delay).toBeGreaterThanOrEqual(0.9 * 5 * MINUTE);
      expect(delay).toBeLessThanOrEqual(1.1 * 5 * MINUTE);
    }
    expect(new Set(samples).size).toBeGreaterThan(100);
  });

  it('refuses an attempt number below 1 or fractional', () => {
    expect(() => retryDelayMs(schedule, 0)).toThrow(RangeError);
    expect(() => retryDelayMs(schedule, 1.5)).toThrow(RangeError);
  });
});
