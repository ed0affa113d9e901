import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createPlanView } from '../src/views/plan-view.ts';

const view = (orgId: string, planId: string | undefined, subscriptionChangedAt: string | null): BusMessage => ({
  topic: Topics.billingQuota,
  partition: 0,
  offset: '0',
  key: orgId,
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.billingQuota, {
    id: randomUUID(),
    type: 'quota.updated',
    version: 1,
    occurredAt: '2026-11-23T00:00:00.000Z',
    data: {
      orgId,
      period: '2026-11',
      submissionsUsed: 1,
      submissionsMax: 100,
      overQuota: false,
      ...(planId ? { planId } : {}),
      subscriptionChangedAt,
    },
  }),
});

describe("forms' plan view (billing.quota)", () => {
  it('follows the newest subscription state per organization, whatever the order the views arrive in', () => {
    const plans = createPlanView();
    expect(plans.planOf('a')).toBeUndefined();
    plans.apply(view('a', 'free', null));
    expect(plans.planOf('a')).toBe('free');
    plans.apply(view('a', 'pro', '2026-11-20T10:00:00.000Z'));
    expect(plans.planOf('a')).toBe('pro');
    // A view computed before the upgrade, published late: stale.
    plans.apply(view('a', 'free', null));
    plans.apply(view('a', 'free', '2026-11-20T09:00:00.000Z'));
    expect(plans.planOf('a')).toBe('pro');
    // A later change (a downgrade) applies; a view without a plan (older records) changes nothing.
    plans.apply(view('a', 'free', '2026-11-21T10:00:00.000Z'));
    plans.apply(view('a', undefined, '2026-11-22T10:00:00.000Z'));
    expect(plans.planOf('a')).toBe('free');
    expect(plans.planOf('b')).toBeUndefined();
  });
});
