import { describe, expect, it } from 'vitest';
import { billingPeriodBounds } from '../src/billing.ts';

describe('billingPeriodBounds', () => {
  it.each([
    ['2026-11', '2026-11-01', '2026-11-30'],
    ['2026-12', '2026-12-01', '2026-12-31'],
    ['2028-02', '2028-02-01', '2028-02-29'],
    ['2027-02', '2027-02-01', '2027-02-28'],
  ])('%s runs from %s to %s', (period, start, end) => {
    expect(billingPeriodBounds(period)).toEqual({ start, end });
  });
});
