import { randomUUID } from 'node:crypto';
import { runMongoMigrations } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Delivery } from '../src/store/index.ts';
import {
  createMongoNotificationStores,
  MONGO_MIGRATIONS,
  migrateMongoNotifications,
} from '../src/store/mongo/index.ts';
import { delivery, runNotificationStoresContract } from './delivery-log.contract.ts';
import { submission } from './notification-views.contract.ts';
import { migratedMongo } from './notifications-db.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

/** The Mongo stores over this file's database, migrated. */
const storesOn = async () => createMongoNotificationStores(await migratedMongo(mongo()));

runNotificationStoresContract({ name: 'mongo', create: storesOn });

const T0 = '2001-01-01T00:00:00.000Z';
/** A delivery of its own organization, due since `T0`. */
const dueDelivery = (over: Partial<Delivery> = {}) =>
  delivery({ orgId: `org_${randomUUID()}`, nextAttemptAt: T0, createdAt: T0, updatedAt: T0, ...over });

describe('the Mongo delivery store finds due and deferred deliveries by an equality (ADR 57)', () => {
  const raw = () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    return db.collection<{ _id: string } & Record<string, unknown>>('deliveries');
  };
  it('keeps `due` exactly while `nextAttemptAt` is set, and `parked` while `deferredAt` is', async () => {
    const { log, deferred } = await storesOn();
    const d = dueDelivery();
    const flags = async () => {
      const doc = await raw().findOne({ _id: d.id });
      return {
        due: doc?.due === true,
        scheduled: typeof doc?.nextAttemptAt === 'string',
        parked: doc?.parked === true,
        deferred: typeof doc?.deferredAt === 'string',
      };
    };
    const scheduled = { due: true, scheduled: true, parked: false, deferred: false };
    const parked = { due: false, scheduled: false, parked: true, deferred: true };
    const done = { due: false, scheduled: false, parked: false, deferred: false };

    await log.planDeliveries([d]);
    expect(await flags()).toEqual(scheduled);
    await deferred.defer(d.id, 0, '2001-01-01T00:00:01.000Z');
    expect(await flags()).toEqual(parked);
    await log.claimAttempt(d.id, 1, {
      startedAt: '2001-01-01T00:00:02.000Z',
      leaseUntil: '2001-01-01T00:02:00.000Z',
    });
    expect(await flags()).toEqual(scheduled);
    const response = { code: '421', text: 'later' };
    const outcome = { response, messageId: null, at: '2001-01-01T00:00:03.000Z' };
    await log.recordOutcome(d.id, 1, { ...outcome, status: 'retrying', nextAttemptAt: '2001-01-01T00:00:08.000Z' });
    expect(await flags()).toEqual(scheduled);
    await deferred.defer(d.id, 1, '2001-01-01T00:00:09.000Z');
    expect(await flags()).toEqual(parked);
    await log.claimAttempt(d.id, 2, {
      startedAt: '2001-01-01T00:00:10.000Z',
      leaseUntil: '2001-01-01T00:02:10.000Z',
    });
    await log.recordOutcome(d.id, 2, { ...outcome, status: 'failed', nextAttemptAt: null });
    expect(await flags()).toEqual(done);
  });
});

describe('the Mongo delivery store writes a submission copy it knows is stored only once', () => {
  const copies = () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    return db.collection<{ _id: string }>('submissions');
  };

  it('skips the second save of a copy (both channel groups save each), but not another process’s or after a delete', async () => {
    const { views: store } = await storesOn();
    const [a, b] = [submission(), submission()];
    const scope = { orgId: a.orgId };
    await store.saveSubmissions([a, b]);
    // Removed behind the store's back: a save it skips does not put the copy back.
    await copies().deleteOne({ _id: a.submissionId });
    await store.saveSubmissions([a, b]);
    await store.saveSubmissions([a]);
    expect(await store.getSubmission(scope, a.submissionId)).toBeNull();
    // Another process knows nothing of it and stores it.
    const { views: other } = await storesOn();
    await other.saveSubmissions([a]);
    expect(await store.getSubmission(scope, a.submissionId)).toEqual(a);
    // A copy the store deleted is stored again by its next save.
    await store.deleteSubmission(b.submissionId);
    await store.saveSubmissions([b]);
    expect(await store.getSubmission(scope, b.submissionId)).toEqual(b);
  });
});

describe('the Mongo tombstones of deleted submissions (migration 5)', () => {
  it('upgrade a store of the previous shape, keeping what it held; read by `_id`, purged by the `org` index', async () => {
    // A database of its own: this file's is migrated to the latest shape by the other tests.
    const conn = mongo().useDb(`${mongo().db?.databaseName}_v4`);
    const db = conn.db;
    if (!db) throw new Error('not connected');
    onTestFinished(() => db.dropDatabase().then(() => undefined));
    await runMongoMigrations(db, 'notifications', MONGO_MIGRATIONS.slice(0, 4));
    const before = dueDelivery();
    await createMongoNotificationStores(conn).log.planDeliveries([before]);
    expect(await migrateMongoNotifications(db)).toEqual({ scope: 'notifications', applied: [5], version: 5 });
    const stores = createMongoNotificationStores(conn);
    expect(await stores.log.getDelivery({ orgId: before.orgId }, before.id)).toMatchObject({
      id: before.id,
      target: before.target,
    });

    const indexes = (await db.collection('gone_submissions').indexes()).map((i) => [i.name, i.key]);
    expect(indexes).toEqual(expect.arrayContaining([['org', { orgId: 1 }]]));
    const submissionId = randomUUID();
    await stores.gone.markGone({ orgId: 'org-1', submissionId, goneAt: T0 });
    expect(await db.collection('gone_submissions').findOne({ _id: submissionId as never })).toEqual({
      _id: submissionId,
      orgId: 'org-1',
      goneAt: T0,
    });
  });
});
