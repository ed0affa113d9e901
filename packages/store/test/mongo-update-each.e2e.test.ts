import { randomBytes } from 'node:crypto';
import type { mongo } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { updateEachOne } from '../src/mongo.ts';
import { useTestMongo } from '../src/testing.ts';

const testDb = useTestMongo();

describe('updateEachOne', () => {
  // More statements than the test FerretDB's PostgreSQL pool has connections (FERRETDB_PG_POOL, 250): as one
  // `bulkWrite` this never returns on FerretDB 1.24 (each statement keeps its connection until the command ends).
  it('updates and upserts more documents than FerretDB has PostgreSQL connections, without stalling it', async () => {
    const db = testDb().db as mongo.Db;
    const docs = db.collection<{ _id: string; n: number }>(`update_each_${randomBytes(4).toString('hex')}`);
    const ids = Array.from({ length: 300 }, (_, i) => `d${i}`);
    await docs.insertMany(ids.map((_id) => ({ _id, n: 0 })));
    const added = ['new-1', 'new-2'];
    await updateEachOne(docs, [
      ...ids.map((_id) => ({ filter: { _id }, update: { $set: { n: 1 } } })),
      ...added.map((_id) => ({ filter: { _id }, update: { $set: { n: 1 } }, upsert: true })),
    ]);
    expect(await docs.countDocuments({ n: 1 })).toBe(302);
    expect(await docs.countDocuments({})).toBe(302);
    // A failure is the caller's: an update that cannot apply rejects.
    await expect(
      updateEachOne(docs, [{ filter: { _id: 'd0' }, update: { $inc: { n: 'x' as unknown as number } } }]),
    ).rejects.toThrow();
  }, 60_000);
});
