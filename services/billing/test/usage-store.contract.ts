import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Meter, UsageStore } from '../src/store/usage-store.ts';

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
      const counts = await store.recordUsage([
        { id: ids[0] as string, orgId, period: '2026-11' },
        { id: ids[1] as string, orgId, period: '2026-11' },
        { id: ids[2] as string, orgId, period: '2026-12' },
        { id: randomUUID(), orgId: other, period: '2026-11' },
      ]);
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
      await store.recordUsage([a]);
      expect(await store.recordUsage([a, b, b, a])).toEqual([{ orgId, period: '2026-11', used: 2 }]);
      expect(await store.recordUsage([a, b])).toEqual([{ orgId, period: '2026-11', used: 2 }]);
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(2);
    });

    it('purges one organization’s ledger, every period, and nothing of others', async () => {
      const orgId = `org_${randomUUID()}`;
      const other = `org_${randomUUID()}`;
      const entry = (o: string, period: string) => ({ id: randomUUID(), orgId: o, period });
      await store.recordUsage([entry(orgId, '2026-11'), entry(orgId, '2026-12'), entry(other, '2026-11')]);
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
      await store.recordUsage([entry(orgId)]);
      await store.purgeOrganization({ orgId });
      expect(await store.recordUsage([entry(orgId), entry(other), entry(orgId)])).toEqual([
        { orgId: other, period: '2026-11', used: 1 },
      ]);
      expect(await store.recordUsage([entry(orgId)])).toEqual([]);
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(0);
      expect(await store.getUsage({ orgId: other }, '2026-11')).toBe(1);
    });

    it('leaves nothing of an organization whose purge ran while its submissions were being recorded', async () => {
      const orgs = Array.from({ length: 8 }, () => `org_${randomUUID()}`);
      const entry = (o: string) => ({ id: randomUUID(), orgId: o, period: '2026-11' });
      await Promise.all(
        orgs.flatMap((orgId) => [
          store.recordUsage([entry(orgId), entry(orgId)]),
          store.purgeOrganization({ orgId }),
          store.recordUsage([entry(orgId)]),
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
      await store.recordUsage([shared, entry(orgId)]);
      expect(await emails.recordUsage([shared, entry(other)])).toEqual(
        expect.arrayContaining([
          { orgId, period: '2026-11', used: 1 },
          { orgId: other, period: '2026-11', used: 1 },
        ]),
      );
      expect(await store.getUsage({ orgId }, '2026-11')).toBe(2);
      expect(await emails.getUsage({ orgId }, '2026-11')).toBe(1);
      await store.purgeOrganization({ orgId });
      expect(await emails.getUsage({ orgId }, '2026-11')).toBe(0);
      expect(await emails.recordUsage([entry(orgId)])).toEqual([]);
      expect(await emails.getUsage({ orgId: other }, '2026-11')).toBe(1);
      await emails.close();
    });
  });
}
