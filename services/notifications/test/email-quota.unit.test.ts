import { encodeEvent, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createEmailQuota } from '../src/deliveries/email-quota.ts';

let offset = 0;
const view = (
  period: string,
  emailsUsed: number,
  emailsMax: number | null = 2,
  over: { subscriptionChangedAt?: string | null; submissionsUsed?: number; orgId?: string } = {},
) => ({
  topic: Topics.billingQuota,
  partition: 0,
  offset: String(offset++),
  key: over.orgId ?? 'org_1',
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.billingQuota, {
    id: `v${offset}`,
    type: 'quota.updated',
    version: 1,
    occurredAt: '2026-05-01T00:00:00.000Z',
    data: {
      orgId: over.orgId ?? 'org_1',
      period,
      submissionsUsed: over.submissionsUsed ?? 1,
      submissionsMax: 100,
      overQuota: false,
      subscriptionChangedAt: over.subscriptionChangedAt ?? null,
      emailsUsed,
      ...(emailsMax === null ? {} : { emailsMax }),
      emailsOverQuota: emailsMax !== null && emailsUsed >= emailsMax,
    },
  }),
});

const MAY = new Date('2026-05-20T10:00:00.000Z');
const JUNE = new Date('2026-06-01T00:00:01.000Z');

describe('emails quota gate', () => {
  it('never holds back an organization it has no view of, or whose view sets no maximum', () => {
    const quota = createEmailQuota();
    expect(quota.room('org_1', MAY)).toBe(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 5; i++) quota.take('org_1', MAY)?.settle(true);
    expect(quota.take('org_1', MAY)).not.toBeNull();
    quota.apply(view('2026-05', 9, null));
    expect(quota.take('org_1', MAY)).not.toBeNull();
  });

  it('defers past the maximum, counting sends in flight and sent since billing’s view', () => {
    const quota = createEmailQuota();
    quota.apply(view('2026-05', 0, 2));
    expect(quota.room('org_1', MAY)).toBe(2);
    const a = quota.take('org_1', MAY);
    const b = quota.take('org_1', MAY);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    // Both in flight: a third is deferred before either is sent.
    expect(quota.take('org_1', MAY)).toBeNull();
    a?.settle(false); // not sent (a temporary failure): its room comes back
    a?.settle(true); // settling twice changes nothing
    expect(quota.room('org_1', MAY)).toBe(1);
    b?.settle(true);
    const c = quota.take('org_1', MAY);
    c?.settle(true);
    // Two sent, billing has not metered them yet: over quota anyway.
    expect(quota.take('org_1', MAY)).toBeNull();
    expect(quota.room('org_1', MAY)).toBe(0);
    // Billing's view catches up with one of them: the local count is not lowered.
    quota.apply(view('2026-05', 1, 2));
    expect(quota.take('org_1', MAY)).toBeNull();
    // Other organizations are not affected.
    expect(quota.take('org_2', MAY)).not.toBeNull();
  });

  it('orders views as ingest does: period, then subscription state, then the emails count', () => {
    const quota = createEmailQuota();
    quota.apply(view('2026-05', 2, 2, { subscriptionChangedAt: '2026-05-10T00:00:00.000Z' }));
    expect(quota.take('org_1', MAY)).toBeNull();
    const before = quota.version;
    // A view computed from an older subscription state (a larger plan since cancelled) is stale.
    quota.apply(view('2026-05', 3, 50, { subscriptionChangedAt: '2026-05-01T00:00:00.000Z' }));
    // A lower count from the same state is stale; so is an earlier period.
    quota.apply(view('2026-05', 1, 50, { subscriptionChangedAt: '2026-05-10T00:00:00.000Z' }));
    quota.apply(view('2026-04', 0, 50, { subscriptionChangedAt: '2026-05-11T00:00:00.000Z' }));
    expect(quota.version).toBe(before);
    expect(quota.take('org_1', MAY)).toBeNull();
    // An upgrade (a newer subscription state) raises the maximum.
    quota.apply(view('2026-05', 2, 5, { subscriptionChangedAt: '2026-05-15T00:00:00.000Z' }));
    expect(quota.version).toBe(before + 1);
    expect(quota.room('org_1', MAY)).toBe(3);
  });

  it('starts a new period at nothing used, with the last known maximum, until billing’s new view', () => {
    const quota = createEmailQuota();
    quota.apply(view('2026-05', 2, 2));
    expect(quota.take('org_1', MAY)).toBeNull();
    expect(quota.room('org_1', JUNE)).toBe(2);
    quota.take('org_1', JUNE)?.settle(true);
    expect(quota.room('org_1', JUNE)).toBe(1);
    // A late view of May changes nothing in June.
    quota.apply(view('2026-05', 2, 2));
    expect(quota.room('org_1', JUNE)).toBe(1);
    quota.apply(view('2026-06', 1, 3));
    expect(quota.room('org_1', JUNE)).toBe(2);
  });

  it('applies a view of nothing used (a purge, or the period watch) whatever came before', () => {
    const quota = createEmailQuota();
    quota.apply(view('2026-05', 2, 2, { subscriptionChangedAt: '2026-05-10T00:00:00.000Z' }));
    quota.apply(view('2026-05', 0, 2, { submissionsUsed: 0 }));
    expect(quota.room('org_1', MAY)).toBe(2);
  });
});
