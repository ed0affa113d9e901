import { describe, expect, it } from 'vitest';
import { createRetrySchedule, nextRetryDelayMs, WEBHOOK_MAX_ATTEMPTS } from '../src/webhooks/retry-schedule.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const nominal = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

describe('webhook retry schedule', () => {
  it('waits nothing before attempt 1, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h without jitter at random 0.5', () => {
    const delays = nominal.map((_, attemptsMade) => nextRetryDelayMs(attemptsMade, () => 0.5));
    expect(delays).toEqual(nominal);
  });

  it('gives up after 8 attempts in all', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(8);
    expect(nextRetryDelayMs(8, () => 0.5)).toBeNull();
    expect(nextRetryDelayMs(20)).toBeNull();
  });

  it('spreads each delay by at most ±10 %, reaching both bounds', () => {
    for (const [attemptsMade, base] of nominal.entries()) {
      expect(nextRetryDelayMs(attemptsMade, () => 0)).toBe(Math.round(base * 0.9));
      expect(nextRetryDelayMs(attemptsMade, () => 0.999_999_999)).toBe(Math.round(base * 1.1));
    }
  });

  it('stays inside the bounds and actually varies with Math.random', () => {
    const samples = Array.from({ length: 500 }, () => nextRetryDelayMs(2) as number);
    for (const delay of samples) {
      expect(delay).toBeGreaterThanOrEqual(0.9 * 5 * MINUTE);
      expect(delay).toBeLessThanOrEqual(1.1 * 5 * MINUTE);
    }
    expect(new Set(samples).size).toBeGreaterThan(100);
  });

  it('keeps the first attempt immediate whatever the jitter', () => {
    expect(nextRetryDelayMs(0, () => 0)).toBe(0);
    expect(nextRetryDelayMs(0, () => 0.99)).toBe(0);
  });

  it('refuses a negative or fractional attempt count', () => {
    expect(() => nextRetryDelayMs(-1)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5)).toThrow(RangeError);
  });

  it('builds other schedules (an email variant) with their own delays and jitter', () => {
    const schedule = createRetrySchedule([0, 60 * SECOND, 10 * MINUTE], { jitter: 0.2 });
    expect(schedule(1, () => 0)).toBe(48 * SECOND);
    expect(schedule(2, () => 0.5)).toBe(10 * MINUTE);
    expect(schedule(3)).toBeNull();
    expect(() => createRetrySchedule([1], { jitter: 1 })).toThrow(RangeError);
    expect(() => createRetrySchedule([-1])).toThrow(RangeError);
  });
});
