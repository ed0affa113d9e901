import { encodeEvent, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createQuotaView } from '../src/views/quota-view.ts';

let offset = 0;
const quota = (period: string, used: number, max = 3) => ({
  topic: Topics.billingQuota,
  partition: 0,
  offset: String(offset++),
  key: 'org_1',
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.billingQuota, {
    id: `org_1:${period}:${used}`,
    type: 'quota.updated',
    version: 1,
    occurredAt: '2026-05-01T00:00:00.000Z',
    data: { orgId: 'org_1', period, submissionsUsed: used, submissionsMax: max, overQuota: used >= max },
  }),
});

describe('quota view', () => {
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
});
