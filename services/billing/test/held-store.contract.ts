import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { HeldStore } from '../src/store/held-store.ts';

export interface HeldStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<HeldStore>;
}

const entry = (orgId: string) => ({ id: randomUUID(), orgId });

/** The guarantees of `HeldStore` (see its JSDoc), checked against one adapter. */
export function runHeldStoreContract(target: HeldStoreTarget) {
  describeContract(`HeldStore contract: ${target.name}`, target.skip, (it) => {
    let store: HeldStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('counts distinct held submissions per organization, whatever the redeliveries', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const [a, b] = [entry(orgId), entry(orgId)];
      await store.hold([a, b, a]);
      await store.hold([a, entry(other)]);
      expect(await store.countHeld({ orgId })).toBe(2);
      expect(await store.countHeld({ orgId: other })).toBe(1);
      expect(await store.countHeld({ orgId: `org_${randomUUID()}` })).toBe(0);
      expect(await store.orgsWithHeld()).toEqual(expect.arrayContaining([orgId, other]));
    });

    it('releases once, and never holds a released submission again', async () => {
      const orgId = `org_${randomUUID()}`;
      const [a, b, early] = [entry(orgId), entry(orgId), entry(orgId)];
      await store.hold([a, b]);
      await store.release([a]);
      await store.release([a]);
      expect(await store.countHeld({ orgId })).toBe(1);
      // A late redelivery of a's receipt, and a release that arrived before its receipt.
      await store.release([early]);
      await store.hold([a, early]);
      expect(await store.countHeld({ orgId })).toBe(1);
      expect(await store.orgsWithHeld()).toContain(orgId);
      await store.release([b]);
      expect(await store.countHeld({ orgId })).toBe(0);
      expect(await store.orgsWithHeld()).not.toContain(orgId);
    });

    it('releases in one call entries held, never held and repeated, and none of them is held again', async () => {
      const orgId = `org_${randomUUID()}`;
      const [held, never, kept] = [entry(orgId), entry(orgId), entry(orgId)];
      await store.hold([held, kept]);
      await store.release([held, never, held, never]);
      expect(await store.countHeld({ orgId })).toBe(1);
      await store.hold([held, never]);
      expect(await store.countHeld({ orgId })).toBe(1);
    });

    it('forgets a purged organization, and ignores its submissions afterwards', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      await store.hold([entry(orgId), entry(other)]);
      await store.purgeOrganization({ orgId });
      await store.purgeOrganization({ orgId });
      await store.hold([entry(orgId)]);
      expect(await store.countHeld({ orgId })).toBe(0);
      expect(await store.orgsWithHeld()).not.toContain(orgId);
      expect(await store.countHeld({ orgId: other })).toBe(1);
    });

    it('leaves nothing of an organization purged while its submissions were held', async () => {
      const orgs = Array.from({ length: 8 }, () => `org_${randomUUID()}`);
      await Promise.all(
        orgs.flatMap((orgId) => [
          store.hold([entry(orgId), entry(orgId)]),
          store.purgeOrganization({ orgId }),
          store.hold([entry(orgId)]),
        ]),
      );
      const left = await Promise.all(orgs.map((orgId) => store.countHeld({ orgId })));
      expect(left).toEqual(orgs.map(() => 0));
    });
  });
}
