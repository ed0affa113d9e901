import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { StorageStore } from '../src/store/storage-store.ts';

export interface StorageStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<StorageStore>;
}

const org = () => `org_${randomUUID()}`;
const files = (orgId: string, formId: string, bytes: number) => ({ id: randomUUID(), orgId, formId, bytes });

/** The guarantees of `StorageStore` (see its JSDoc), checked against one adapter. */
export function runStorageStoreContract(target: StorageStoreTarget) {
  describeContract(`StorageStore contract: ${target.name}`, target.skip, (it) => {
    let store: StorageStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('sums the bytes of each organization once per submission, whatever the redeliveries', async () => {
      const [orgId, other] = [org(), org()];
      const a = files(orgId, 'f1', 1_000);
      const b = files(orgId, 'f2', 2_500);
      await store.record([a, b, a]);
      await store.record([a, files(other, 'f3', 7), files(orgId, 'f1', 0)]);
      expect(await store.usedBytes({ orgId })).toBe(3_500);
      expect(await store.usedBytes({ orgId: other })).toBe(7);
      expect(await store.usedBytes({ orgId: org() })).toBe(0);
    });

    it('frees a deleted submission once; freed before it is recorded, it is never counted', async () => {
      const orgId = org();
      const [a, b, early] = [files(orgId, 'f', 100), files(orgId, 'f', 200), files(orgId, 'f', 400)];
      await store.record([a, b]);
      await store.free([{ id: a.id, orgId }]);
      await store.free([{ id: a.id, orgId }]);
      expect(await store.usedBytes({ orgId })).toBe(200);
      await store.free([{ id: early.id, orgId }]);
      await store.record([early, a]);
      expect(await store.usedBytes({ orgId })).toBe(200);
    });

    it("frees a deleted form's submissions, recorded before or after, and only that form's", async () => {
      const orgId = org();
      const formId = `form_${randomUUID()}`;
      const kept = files(orgId, `form_${randomUUID()}`, 50);
      await store.record([files(orgId, formId, 100), kept]);
      await store.freeForm({ orgId }, formId);
      await store.record([files(orgId, formId, 1_000)]);
      await store.freeForm({ orgId }, formId);
      expect(await store.usedBytes({ orgId })).toBe(50);
      await store.free([{ id: kept.id, orgId }]);
      expect(await store.usedBytes({ orgId })).toBe(0);
    });

    it('purges an organization for good, and only it', async () => {
      const [orgId, other] = [org(), org()];
      await store.record([files(orgId, 'f', 10), files(other, 'f', 20)]);
      await store.purgeOrganization({ orgId });
      await store.purgeOrganization({ orgId });
      await store.record([files(orgId, 'g', 30)]);
      expect(await store.usedBytes({ orgId })).toBe(0);
      expect(await store.usedBytes({ orgId: other })).toBe(20);
    });
  });
}
