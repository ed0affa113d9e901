import { DEFAULT_PLANS, decodeEvent, Topics } from '@formgate/contracts';
import { planCatalog } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { effectivePlan } from '../src/quota.ts';
import { quotaUpdatedMessage } from '../src/quota-event.ts';
import type { SubscriptionState } from '../src/store/records.ts';

const catalog = planCatalog(DEFAULT_PLANS);
const subscription = (planId: string, status: SubscriptionState['status']): SubscriptionState => ({
  planId,
  status,
  interval: 'month',
  periodStart: null,
  periodEnd: null,
  cancelAtPeriodEnd: false,
  trialEnd: null,
  stripeSubscriptionId: 'sub_1',
  changedAt: '2026-05-01T00:00:00.000Z',
});

describe('the plan in effect', () => {
  it('is the subscribed plan while the subscription is active, trialing or past due', () => {
    for (const status of ['active', 'trialing', 'past_due'] as const) {
      expect(effectivePlan(catalog, subscription('pro', status)).id, status).toBe('pro');
    }
  });

  it('is the default plan without a subscription, once it ends, or when its plan left the catalog', () => {
    expect(effectivePlan(catalog, null).id).toBe('free');
    for (const status of ['canceled', 'incomplete', 'incomplete_expired', 'unpaid', 'paused', null] as const) {
      expect(effectivePlan(catalog, subscription('business', status)).id, String(status)).toBe('free');
    }
    expect(effectivePlan(catalog, subscription('enterprise', 'active')).id).toBe('free');
  });
});

describe('the quota view’s event', () => {
  const view = {
    orgId: 'org_1',
    period: '2026-05',
    planId: 'free',
    subscriptionChangedAt: null,
    submissionsUsed: 100,
    submissionsMax: 100,
    overQuota: true,
    submissionsHeld: 2,
    emailsUsed: 3,
    emailsMax: 100,
    emailsOverQuota: false,
  };
  const idOf = (v: typeof view) =>
    decodeEvent(Topics.billingQuota, quotaUpdatedMessage(v, '2026-05-14T12:00:00.000Z').value).id;

  it('is the same event for the same view, keyed by organization', () => {
    const message = quotaUpdatedMessage(view, '2026-05-14T12:00:00.000Z');
    expect(message.key).toBe('org_1');
    expect(idOf({ ...view })).toBe(idOf(view));
    expect(decodeEvent(Topics.billingQuota, message.value).data).toEqual(view);
  });

  it('is a new event whenever anything in the view changes, not only the count', () => {
    const ids = [
      view,
      { ...view, planId: 'pro', submissionsMax: 5_000, overQuota: false },
      { ...view, submissionsHeld: 3 },
      { ...view, emailsUsed: 4 },
      { ...view, subscriptionChangedAt: '2026-05-02T00:00:00.000Z' },
      { ...view, fileStorage: { usedMb: 1, maxMb: 100, full: false, measuredAt: '2026-05-14T12:00:00.000Z' } },
      { ...view, fileStorage: { usedMb: 100, maxMb: 100, full: true, measuredAt: '2026-05-14T12:00:00.000Z' } },
    ].map((v) => idOf(v as typeof view));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is the same event for the same storage measured again later', () => {
    const at = (measuredAt: string) => ({ ...view, fileStorage: { usedMb: 1, maxMb: 100, full: false, measuredAt } });
    expect(idOf(at('2026-05-14T12:00:01.000Z'))).toBe(idOf(at('2026-05-14T12:00:00.000Z')));
  });
});
