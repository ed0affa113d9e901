import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Meter } from '../src/store/records.ts';
import type { UsageStore } from '../src/store/usage-store.ts';

export interface UsageStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  /** A store of `meter` (default submissions); every call of one target opens the same database. */
  create: (meter?: Meter) => Promise<UsageStore>;
}

/** The guarantees of `UsageStore` (see its JSDoc), checked against one adapter. */
export function runUsageStoreContract(target: UsageStoreTarget) {
  describeContract(`UsageStore contract: ${target.name}`, target.skip, (it) => {
    let store: UsageStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('counts distinct submissions per organization and period', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const counts = await store.recordUsage(
        [
          { id: ids[0] as string, orgId, period: '2026-11' },
          { id: ids[1] as string, orgId, period: '2026-11' },
          { id: ids[2] as string, orgId, period: '2026-12' },
          { id: randomUUID(), orgId: other, period: '2026-11' },
        ],
        'w',
      );
      expect(counts).toEqual(
        expect.arrayContaining([
          { orgId, period: '2026-11', used: 2 },
          { orgId, period: '2026-12', used: 1 },
          { orgId: other, period: '2026-11', used: 1 },
        ]),
      );
      expect(counts).toHaveLength(3);
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(2);
      expect(await store.getUsage({ orgId: `org_${randomUUID()}` }, '2026-11')).toBe(0);
    });

    it('does not count a submission twice, within a batch or across redeliveries', async () => {
      const orgId = `org_${randomUUID()}`;
      const a = { id: randomUUID(), orgId, period: '2026-11' };
      const b = { id: randomUUID(), orgId, period: '2026-11' };
      await store.recordUsage([a], 'w');
      expect(await store.recordUsage([a, b, b, a], 'w')).toEqual([{ orgId, period: '2026-11', used: 2 }]);
      expect(await store.recordUsage([a, b], 'w')).toEqual([{ orgId, period: '2026-11', used: 2 }]);
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(2);
    });

    it('counts exactly what several writers record at once for one organization, overlaps and replays included', async () => {
      const orgId = `org_${randomUUID()}`;
      const ids = Array.from({ length: 60 }, () => randomUUID());
      const entry = (id: string) => ({ id, orgId, period: '2026-11' });
      // Four writers (partitions), each its batches one after the other, all four at once; each writer's batches
      // overlap another writer's ids (a submission released and received) and replay its own last batch.
      await Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          const mine = ids.slice(w * 15, w * 15 + 15);
          const theirs = ids.slice(((w + 1) % 4) * 15, ((w + 1) % 4) * 15 + 5);
          for (const batch of [mine.slice(0, 5), [...mine.slice(5, 10), ...theirs], mine.slice(10), mine.slice(10)]) {
            await store.recordUsage(batch.map(entry), `writer-${w}`);
          }
        }),
      );
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(60);
      expect(await store.recordUsage(ids.slice(0, 3).map(entry), 'writer-0')).toEqual([
        { orgId, period: '2026-11', used: 60 },
      ]);
    });

    it('purges one organization’s ledger, every period, and nothing of others', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const entry = (o: string, period: string) => ({ id: randomUUID(), orgId: o, period });
      await store.recordUsage([entry(orgId, '2026-11'), entry(orgId, '2026-12'), entry(other, '2026-11')], 'w');
      await store.purgeOrganization({ orgId });
      await store.purgeOrganization({ orgId });
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(0);
      expect(await store.getUsage({ orgId }, '2026-12')).toBe(0);
      expect(await store.getUsage({ orgId: other }, '2026-11')).toBe(1);
    });

    it('ignores a purged organization’s submissions that arrive after the purge, and only its', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const entry = (o: string) => ({ id: randomUUID(), orgId: o, period: '2026-11' });
      await store.recordUsage([entry(orgId)], 'w');
      await store.purgeOrganization({ orgId });
      expect(await store.recordUsage([entry(orgId), entry(other), entry(orgId)], 'w')).toEqual([
        { orgId: other, period: '2026-11', used: 1 },
      ]);
      expect(await store.recordUsage([entry(orgId)], 'w')).toEqual([]);
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(0);
      expect(await store.getUsage({ orgId: other }, '2026-11')).toBe(1);
    });

    it('leaves nothing of an organization whose purge ran while its submissions were being recorded', async () => {
      const orgs = Array.from({ length: 8 }, () => `org_${randomUUID()}`);
      const entry = (o: string) => ({ id: randomUUID(), orgId: o, period: '2026-11' });
      await Promise.all(
        orgs.flatMap((orgId) => [
          // Concurrent calls are of different writers (calls of one writer never overlap).
          store.recordUsage([entry(orgId), entry(orgId)], `w1-${orgId}`),
          store.purgeOrganization({ orgId }),
          store.recordUsage([entry(orgId)], `w2-${orgId}`),
        ]),
      );
      const left = await Promise.all(orgs.map((orgId) => store.getUsage({ orgId }, '2026-11')));
      expect(left).toEqual(orgs.map(() => 0));
    });

    it('keeps each meter apart, and purges an organization from every meter', async () => {
      const emails = await target.create('emails');
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const entry = (o: string) => ({ id: randomUUID(), orgId: o, period: '2026-11' });
      const shared = entry(orgId);
      await store.recordUsage([shared, entry(orgId)], 'w');
      expect(await emails.recordUsage([shared, entry(other)], 'w')).toEqual(
        expect.arrayContaining([
          { orgId, period: '2026-11', used: 1 },
          { orgId: other, period: '2026-11', used: 1 },
        ]),
      );
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(2);
      expect(await emails.getUsage({ orgId }, '2026-11')).toBe(1);
      await store.purgeOrganization({ orgId });
      expect(await emails.getUsage({ orgId }, '2026-11')).toBe(0);
      expect(await emails.recordUsage([entry(orgId)], 'w')).toEqual([]);
      expect(await emails.getUsage({ orgId: other }, '2026-11')).toBe(1);
      await emails.close();
    });
  });
}
