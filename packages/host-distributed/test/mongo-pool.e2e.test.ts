import { randomBytes } from 'node:crypto';
import { createMetrics, createStoreHealth } from '@formgate/kit';
import { loadTestRunConfig, parsePrometheusText, sumOf } from '@formgate/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createMongoPool } from '../src/mongo-pool.ts';

const url = loadTestRunConfig().MONGO_URL;
if (!url) throw new Error('MONGO_URL is not set: the e2e globalSetup must start FerretDB (or point at MongoDB)');

describe('createMongoPool: formgate_mongo_commands_total', () => {
  const metrics = createMetrics({ defaults: false });
  const prefix = `fg_test_${randomBytes(6).toString('hex')}`;
  const pool = createMongoPool({
    url,
    prefix,
    probe: 'pool-test',
    storeHealth: createStoreHealth(),
    countCommand: metrics.countMongoCommand,
  });
  afterAll(async () => {
    await (await pool.connect('counted')).db?.dropDatabase();
    await pool.close();
  });
  const count = async (labels: Record<string, string>) =>
    sumOf(parsePrometheusText((await metrics.exposition()).body), 'formgate_mongo_commands_total', labels);

  it('counts every command the driver sends, by database short name and command, but no handshake or ping', async () => {
    const conn = await pool.connect('counted');
    const db = conn.db;
    if (!db) throw new Error('not connected');
    const docs = db.collection<{ _id: string; n: number }>('docs');
    const before = { insert: await count({ db: 'counted', command: 'insert' }), all: await count({}) };
    for (let i = 0; i < 3; i++) await docs.insertOne({ _id: `d${i}`, n: i });
    expect(await count({ db: 'counted', command: 'insert' })).toBe(before.insert + 3);
    await docs.find({ n: { $gte: 0 } }).toArray();
    await docs.updateOne({ _id: 'd0' }, { $set: { n: 10 } });
    await db.command({ ping: 1 });
    // 3 inserts, 1 find (one batch), 1 update; the ping is not counted.
    expect(await count({})).toBe(before.all + 5);
    expect(await count({ db: 'counted', command: 'find' })).toBe(1);
    expect(await count({ db: 'counted', command: 'update' })).toBe(1);
    expect(await count({ command: 'ping' })).toBe(0);
    expect(await count({ command: 'hello' })).toBe(0);
    expect(await count({ command: 'isMaster' })).toBe(0);
  });
});
