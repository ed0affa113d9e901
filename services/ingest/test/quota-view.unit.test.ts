import { encodeEvent, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createQuotaView } from '../src/views/quota-view.ts';

let offset = 0;
const quota = (
  period: string,
  used: number,
  max = 3,
  subscriptionChangedAt: string | null = null,
  planId?: string,
  fileStorage?: { usedMb: number; maxMb: number | null; full: boolean; measuredAt: string },
) => ({
  topic: Topics.billingQuota,
  partition: 0,
  offset: String(offset++),
  key: 'org_1',
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.billingQuota, {
    id: `org_1:${period}:${used}:${max}:${subscriptionChangedAt}`,
    type: 'quota.updated',
    version: 1,
    occurredAt: '2026-05-01T00:00:00.000Z',
    data: {
      orgId: 'org_1',
      period,
      submissionsUsed: used,
      submissionsMax: max,
      overQuota: used >= max,
      subscriptionChangedAt,
      ...(planId ? { planId } : {}),
      ...(fileStorage ? { fileStorage } : {}),
    },
  }),
});

const storage = (full: boolean, measuredAt: string) => ({ usedMb: full ? 100 : 10, maxMb: 100, full, measuredAt });

describe('quota view', () => {
  it("knows each organization's plan, kept when its count is reset, never from a stale view", () => {
    const view = createQuotaView();
    expect(view.planOf('org_1')).toBeUndefined();
    view.apply(quota('2026-05', 2, 3, '2026-05-02T00:00:00.000Z', 'pro'));
    view.apply(quota('2026-05', 1, 3, '2026-05-01T00:00:00.000Z', 'free'));
    expect(view.planOf('org_1')).toBe('pro');
    view.apply(quota('2026-06', 0, 3, '2026-05-02T00:00:00.000Z', 'pro'));
    expect(view.planOf('org_1')).toBe('pro');
  });

  it('keeps the highest count of a period, whatever order the counts arrive in', () => {
    const view = createQuotaView();
    view.apply(quota('2026-05', 3));
    view.apply(quota('2026-05', 2));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(true);
    expect(view.isOverQuota('org_1', '2026-06')).toBe(false);
  });

  it('forgets an organization when billing publishes a zero count (its ledger was purged)', () => {
    const view = createQuotaView();
    view.apply(quota('2026-05', 5));
    view.apply(quota('2026-05', 0));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(false);
    view.apply(quota('2026-05', 1));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(false);
  });

  it('applies a plan change at the same count, and never a view computed from an older subscription', () => {
    const view = createQuotaView();
    view.apply(quota('2026-05', 3, 3));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(true);
    // The upgrade: the same count, a higher maximum, a newer subscription state.
    view.apply(quota('2026-05', 3, 5_000, '2026-05-10T00:00:00.000Z'));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(false);
    // A count computed before the upgrade, published after it: higher, but stale.
    view.apply(quota('2026-05', 4, 3));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(false);
    // The cancellation: a newer state, back on the small plan.
    view.apply(quota('2026-05', 3, 3, '2026-05-12T00:00:00.000Z'));
    expect(view.isOverQuota('org_1', '2026-05')).toBe(true);
  });

  it('lets a new period’s view (nothing used yet) end the holding, and ignores the old period’s after it', () => {
    const view = createQuotaView();
    view.apply(quota('2026-05', 3));
    view.apply(quota('2026-06', 0));
    expect(view.isOverQuota('org_1', '2026-06')).toBe(false);
    view.apply(quota('2026-05', 4));
    expect(view.isOverQuota('org_1', '2026-06')).toBe(false);
    view.apply(quota('2026-06', 1));
    view.apply(quota('2026-05', 5));
    expect(view.isOverQuota('org_1', '2026-06')).toBe(false);
  });

  it('knows whether file storage is full from the newest measure, whatever view carries it', () => {
    const view = createQuotaView();
    expect(view.isStorageFull('org_1')).toBe(false);
    view.apply(quota('2026-05', 2, 3, null, 'free', storage(true, '2026-05-02T00:00:00.000Z')));
    expect(view.isStorageFull('org_1')).toBe(true);
    // A view that measured nothing leaves it; a stale count still carries a newer measure.
    view.apply(quota('2026-05', 3));
    expect(view.isStorageFull('org_1')).toBe(true);
    view.apply(quota('2026-05', 1, 3, null, 'free', storage(false, '2026-05-03T00:00:00.000Z')));
    expect(view.isStorageFull('org_1')).toBe(false);
    // An older measure arriving late changes nothing; a new period's zero count forgets no measure.
    view.apply(quota('2026-05', 3, 3, null, 'free', storage(true, '2026-05-02T12:00:00.000Z')));
    expect(view.isStorageFull('org_1')).toBe(false);
    view.apply(quota('2026-06', 0, 3, null, 'free', storage(true, '2026-06-01T00:00:00.000Z')));
    view.apply(quota('2026-06', 0));
    expect(view.isStorageFull('org_1')).toBe(true);
  });
});
