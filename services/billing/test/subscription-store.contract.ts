import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SubscriptionChange } from '../src/store/records.ts';
import type { SubscriptionStore } from '../src/store/subscription-store.ts';

export interface SubscriptionStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<SubscriptionStore>;
}

const change = (orgId: string, changedAt: string, extra: Partial<SubscriptionChange> = {}): SubscriptionChange => ({
  eventId: randomUUID(),
  orgId,
  planId: 'pro',
  status: 'active',
  interval: 'month',
  periodStart: '2026-05-01T00:00:00.000Z',
  periodEnd: '2026-06-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  trialEnd: null,
  stripeSubscriptionId: 'sub_1',
  changedAt,
  ...extra,
});
const stateOf = ({ eventId: _, orgId: __, ...state }: SubscriptionChange) => state;

/** The guarantees of `SubscriptionStore` (see its JSDoc), checked against one adapter. */
export function runSubscriptionStoreContract(target: SubscriptionStoreTarget) {
  describeContract(`SubscriptionStore contract: ${target.name}`, target.skip, (it) => {
    let store: SubscriptionStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('keeps each organization’s applied state, and none for an organization without', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const mine = change(orgId, '2026-05-02T10:00:00.000Z');
      const theirs = change(other, '2026-05-02T10:00:00.000Z', { planId: 'business', interval: 'year' });
      expect(await store.apply(mine)).toBe(true);
      expect(await store.apply(theirs)).toBe(true);
      expect(await store.get({ orgId })).toEqual(stateOf(mine));
      expect(await store.get({ orgId: other })).toEqual(stateOf(theirs));
      expect(await store.get({ orgId: `org_${randomUUID()}` })).toBeNull();
    });

    it('never rolls back to an older change delivered late', async () => {
      const orgId = `org_${randomUUID()}`;
      const newer = change(orgId, '2026-05-03T10:00:00.000Z', { status: 'canceled' });
      expect(await store.apply(newer)).toBe(true);
      expect(await store.apply(change(orgId, '2026-05-03T09:59:59.999Z'))).toBe(false);
      expect(await store.get({ orgId })).toEqual(stateOf(newer));
    });

    it('applies an event once, even when it comes back after others', async () => {
      const orgId = `org_${randomUUID()}`;
      const first = change(orgId, '2026-05-04T10:00:00.000Z');
      const second = change(orgId, '2026-05-04T10:00:00.000Z', { cancelAtPeriodEnd: true });
      expect(await store.apply(first)).toBe(true);
      expect(await store.apply(first)).toBe(false);
      // Equal changedAt: the one applied last wins...
      expect(await store.apply(second)).toBe(true);
      expect(await store.get({ orgId })).toEqual(stateOf(second));
      // ...and a replay of the first is not applied again.
      expect(await store.apply(first)).toBe(false);
      expect(await store.get({ orgId })).toEqual(stateOf(second));
    });

    it('forgets a purged organization, and ignores its changes afterwards', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      await store.apply(change(orgId, '2026-05-05T10:00:00.000Z'));
      const kept = change(other, '2026-05-05T10:00:00.000Z');
      await store.apply(kept);
      await store.purgeOrganization({ orgId });
      await store.purgeOrganization({ orgId });
      expect(await store.get({ orgId })).toBeNull();
      expect(await store.apply(change(orgId, '2026-05-06T10:00:00.000Z'))).toBe(false);
      expect(await store.get({ orgId })).toBeNull();
      expect(await store.get({ orgId: other })).toEqual(stateOf(kept));
    });

    it('leaves nothing of an organization purged while its changes were applied', async () => {
      const orgs = Array.from({ length: 8 }, () => `org_${randomUUID()}`);
      await Promise.all(
        orgs.flatMap((orgId) => [
          store.apply(change(orgId, '2026-05-07T10:00:00.000Z')),
          store.purgeOrganization({ orgId }),
          store.apply(change(orgId, '2026-05-07T11:00:00.000Z')),
        ]),
      );
      const left = await Promise.all(orgs.map((orgId) => store.get({ orgId })));
      expect(left).toEqual(orgs.map(() => null));
    });
  });
}
