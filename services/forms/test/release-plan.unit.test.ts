import type { QuotaUpdated } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { planRelease } from '../src/use-cases/release-held.ts';

const view = (used: number, max: number, period = '2026-03'): QuotaUpdated['data'] => ({
  orgId: 'org-a',
  period,
  submissionsUsed: used,
  submissionsMax: max,
  overQuota: used >= max,
  submissionsHeld: 0,
  emailsUsed: 0,
  emailsOverQuota: false,
});

describe('planRelease: how many held submissions a quota view allows', () => {
  it('owes max − used, no more than are held', () => {
    expect(planRelease(null, view(3, 5), 10)).toEqual({
      orgId: 'org-a',
      period: '2026-03',
      level: 5,
      owed: 2,
      done: 0,
    });
    expect(planRelease(null, view(3, 50), 4)).toMatchObject({ level: 7, owed: 4 });
  });

  it('owes nothing more for a view that does not count the releases yet, or for the same view again', () => {
    const first = planRelease(null, view(3, 5), 10);
    expect(planRelease(first, view(3, 5), 10)).toEqual(first);
    expect(planRelease({ ...first, done: 1 }, view(4, 5), 9)).toEqual({ ...first, done: 1 });
    // Billing counted both releases and the limit went up: 5 more.
    expect(planRelease({ ...first, done: 2 }, view(5, 10), 8)).toMatchObject({ level: 10, owed: 7, done: 2 });
  });

  it('counts what is still owed against the held ones, and owes nothing over quota', () => {
    const pending = { orgId: 'org-a', period: '2026-03', level: 5, owed: 2, done: 0 };
    expect(planRelease(pending, view(3, 50), 3)).toMatchObject({ owed: 3 });
    expect(planRelease(pending, view(6, 5), 10)).toEqual(pending);
  });

  it('starts over in a new period: used 0, the whole limit', () => {
    const old = { orgId: 'org-a', period: '2026-02', level: 5, owed: 2, done: 2 };
    expect(planRelease(old, view(0, 3, '2026-03'), 10)).toEqual({
      orgId: 'org-a',
      period: '2026-03',
      level: 3,
      owed: 3,
      done: 0,
    });
  });
});
