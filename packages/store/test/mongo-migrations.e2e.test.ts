import { describe, expect, it } from 'vitest';
import type { MongoDb } from '../src/mongo.ts';
import {
  MIGRATIONS_COLLECTION,
  type MongoMigration,
  mongoSchemaVersion,
  runMongoMigrations,
} from '../src/mongo-migrations.ts';
import { useTestMongo } from '../src/testing.ts';
import { type MigrationsHarness, runMigrationsContract, type Step } from './migrations.contract.ts';

const conn = useTestMongo();
const db = (): MongoDb => conn().db as MongoDb;

const asMigrations = (scope: string, steps: Step[], delayMs = 0): MongoMigration[] =>
  steps.map((step, i) => ({
    version: i + 1,
    name: step.name,
    async up(d) {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      if (step.fail) throw new Error(`${step.name} failed`);
      await d.collection('log').insertOne({ scope, name: step.name, at: process.hrtime.bigint().toString() });
    },
  }));

const log = async (scope: string) =>
  (await db().collection<{ name: string; at: string }>('log').find({ scope }).toArray())
    .sort((a, b) => (BigInt(a.at) < BigInt(b.at) ? -1 : 1))
    .map((d) => d.name);

const harness = (): MigrationsHarness => ({
  run: async (scope, steps) => (await runMongoMigrations(db(), scope, asMigrations(scope, steps))).applied,
  version: (scope) => mongoSchemaVersion(db(), scope),
  log,
});

runMigrationsContract('mongo', harness);

describe('mongo migrations', () => {
  it('runs each migration once when instances boot together: the others wait for the lock', async () => {
    const steps = [{ name: 'a' }, { name: 'b' }];
    const runs = await Promise.all(
      [1, 2, 3].map(() => runMongoMigrations(db(), 'together', asMigrations('together', steps, 50), { pollMs: 20 })),
    );
    expect(runs.flatMap((r) => r.applied).sort()).toEqual([1, 2]);
    expect(await log('together')).toEqual(['a', 'b']);
    expect(
      await db()
        .collection(MIGRATIONS_COLLECTION)
        .findOne({ _id: 'together:lock' as never }),
    ).toBeNull();
  });

  it('takes over the lock of an instance that died holding it, once its lease is over', async () => {
    await db()
      .collection<{ _id: string; scope: string; holder: string; until: Date }>(MIGRATIONS_COLLECTION)
      .insertOne({ _id: 'orphan:lock', scope: 'orphan', holder: 'dead', until: new Date(Date.now() - 1) });
    const run = await runMongoMigrations(db(), 'orphan', asMigrations('orphan', [{ name: 'a' }]), { pollMs: 20 });
    expect(run.applied).toEqual([1]);
  });

  it('waits while a live instance holds the lock', async () => {
    const locks = db().collection<{ _id: string; scope: string; holder: string; until: Date }>(MIGRATIONS_COLLECTION);
    await locks.insertOne({ _id: 'held:lock', scope: 'held', holder: 'alive', until: new Date(Date.now() + 60_000) });
    let done = false;
    const running = runMongoMigrations(db(), 'held', asMigrations('held', [{ name: 'a' }]), { pollMs: 20 }).then(
      (r) => {
        done = true;
        return r;
      },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(done).toBe(false);
    await locks.deleteOne({ _id: 'held:lock' });
    expect((await running).applied).toEqual([1]);
  });
});
