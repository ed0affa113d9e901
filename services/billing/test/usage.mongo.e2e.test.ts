import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMongoUsageStore } from '../src/store/mongo/usage.ts';
import { useBillingMongo } from './mongo-billing.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

const migrated = useBillingMongo();

runUsageStoreContract({ name: 'mongo', create: async (meter) => createMongoUsageStore(await migrated(), { meter }) });

describe('the Mongo usage counters (ADR 65)', () => {
  const period = '2026-11';
  const counterOf = async (writer: string, orgId: string) =>
    (await migrated())
      .collection<{ _id: string; seq: number; pending?: string; count: number }>('usage_counters')
      .findOne({ _id: JSON.stringify([writer, orgId, period]) });

  it('counts a call that died between its entries and its commit once: on read, and by its writer’s next call', async () => {
    const store = createMongoUsageStore(await migrated());
    const orgId = `org_${randomUUID()}`;
    const entry = () => ({ id: randomUUID(), orgId, period });
    const [a, b, c, d, e] = [entry(), entry(), entry(), entry(), entry()];
    await store.recordUsage([a, b], 'w');
    // What a call dies leaving: its counter reserved for its tally, its entries inserted, no commit.
    const before = await counterOf('w', orgId);
    await (await migrated())
      .collection<{ _id: string }>('usage_counters')
      .updateOne({ _id: before?._id as string }, { $set: { pending: 'dead-call', seq: (before?.seq ?? 0) + 1 } });
    await (await migrated())
      .collection<{ _id: string }>('usage_entries')
      .insertMany([c, d].map((x) => ({ _id: x.id, orgId, period, tally: 'dead-call' })));
    expect(await store.getUsage({ orgId }, period)).toBe(4);
    // The redelivery finds c and d taken; they are counted once, and e once.
    expect(await store.recordUsage([c, d, e], 'w')).toEqual([{ orgId, period, used: 5 }]);
    expect(await store.getUsage({ orgId }, period)).toBe(5);
    const after = await counterOf('w', orgId);
    expect(after?.pending).toBeUndefined();
    expect(after?.count).toBe(5);
  });
});
