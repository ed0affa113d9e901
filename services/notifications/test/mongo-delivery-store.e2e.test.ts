import { randomUUID } from 'node:crypto';
import { useTestMongo } from '@formgate/store/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Delivery } from '../src/deliveries/delivery-store.ts';
import { CLEAN_SWEEPS, createMongoDeliveryStore, SWEEP_MS } from '../src/deliveries/mongo-delivery-store.ts';
import { delivery, runDeliveryStoreContract, submission } from './delivery-store.contract.ts';

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

runDeliveryStoreContract({ name: 'mongo', create: () => createMongoDeliveryStore(mongo()) });

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
  afterEach(() => vi.useRealTimers());

  it('keeps `due` exactly while `nextAttemptAt` is set, and `parked` while `deferredAt` is', async () => {
    const store = await createMongoDeliveryStore(mongo());
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

    await store.planDeliveries([d]);
    expect(await flags()).toEqual(scheduled);
    await store.deferDelivery(d.id, 0, '2001-01-01T00:00:01.000Z');
    expect(await flags()).toEqual(parked);
    await store.claimAttempt(d.id, 1, {
      startedAt: '2001-01-01T00:00:02.000Z',
      leaseUntil: '2001-01-01T00:02:00.000Z',
    });
    expect(await flags()).toEqual(scheduled);
    const response = { code: '421', text: 'later' };
    const outcome = { response, messageId: null, at: '2001-01-01T00:00:03.000Z' };
    await store.recordOutcome(d.id, 1, { ...outcome, status: 'retrying', nextAttemptAt: '2001-01-01T00:00:08.000Z' });
    expect(await flags()).toEqual(scheduled);
    await store.deferDelivery(d.id, 1, '2001-01-01T00:00:09.000Z');
    expect(await flags()).toEqual(parked);
    await store.claimAttempt(d.id, 2, {
      startedAt: '2001-01-01T00:00:10.000Z',
      leaseUntil: '2001-01-01T00:02:10.000Z',
    });
    await store.recordOutcome(d.id, 2, { ...outcome, status: 'failed', nextAttemptAt: null });
    expect(await flags()).toEqual(done);
  });

  it('finds deliveries written without the flags (before them, or by an older instance) at its first look and every SWEEP_MS, until none is left', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-24T12:00:00.000Z'));
    const store = await createMongoDeliveryStore(mongo());
    const unflagged = dueDelivery({ nextAttemptAt: '2000-06-01T00:00:00.000Z' });
    const { id: _id, ...fields } = unflagged;
    const parkedOrg = `org_${randomUUID()}`;
    const unflaggedDeferred = dueDelivery({ orgId: parkedOrg, nextAttemptAt: null });
    const { id: deferredId, ...deferredFields } = unflaggedDeferred;
    await raw().insertMany([
      { _id: unflagged.id, ...fields },
      { _id: deferredId, ...deferredFields, deferredAt: '2000-06-01T00:00:00.000Z' },
    ]);
    const flagged = dueDelivery({ nextAttemptAt: '2000-06-02T00:00:00.000Z' });
    await store.planDeliveries([flagged]);
    const now = '2000-12-31T00:00:00.000Z';
    const due = async () => (await store.listDue(now, 1_000)).map((d) => d.id);

    // The first look sweeps: both; until the next sweep only the flagged one is asked for.
    expect(await due()).toEqual(expect.arrayContaining([unflagged.id, flagged.id]));
    expect(await due()).toContain(flagged.id);
    expect(await due()).not.toContain(unflagged.id);
    vi.setSystemTime(Date.now() + SWEEP_MS);
    expect(await due()).toEqual(expect.arrayContaining([unflagged.id, flagged.id]));

    // A deferred delivery without `parked`: its organization is found by the sweep, and listed until it is drained.
    expect(await store.deferredOrgs()).toContain(parkedOrg);
    expect((await store.listDeferred(parkedOrg, 10)).map((d) => [d.id, d.status])).toEqual([[deferredId, 'deferred']]);

    // Both attempted (the store writes them flagged): the sweeps find none, and after CLEAN_SWEEPS in a row they stop.
    for (const id of [unflagged.id, deferredId]) {
      await store.claimAttempt(id, 1, { startedAt: now, leaseUntil: now });
      const response = { code: '250', text: 'accepted' };
      await store.recordOutcome(id, 1, {
        status: 'succeeded',
        response,
        messageId: null,
        nextAttemptAt: null,
        at: now,
      });
    }
    for (let i = 0; i < CLEAN_SWEEPS; i++) {
      vi.setSystemTime(Date.now() + SWEEP_MS);
      expect(await due()).toContain(flagged.id);
      await store.deferredOrgs();
    }
    const late = dueDelivery({ nextAttemptAt: '2000-06-03T00:00:00.000Z' });
    const { id: lateId, ...lateFields } = late;
    await raw().insertOne({ _id: lateId, ...lateFields });
    vi.setSystemTime(Date.now() + SWEEP_MS);
    expect(await due()).not.toContain(lateId);
  });
});

describe('the Mongo delivery store writes a submission copy it knows is stored only once', () => {
  const copies = () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    return db.collection<{ _id: string }>('submissions');
  };

  it('skips the second save of a copy (both channel groups save each), but not another process’s or after a delete', async () => {
    const store = await createMongoDeliveryStore(mongo());
    const [a, b] = [submission(), submission()];
    await store.saveSubmissions([a, b]);
    // Removed behind the store's back: a save it skips does not put the copy back.
    await copies().deleteOne({ _id: a.submissionId });
    await store.saveSubmissions([a, b]);
    await store.saveSubmission(a);
    expect(await store.getSubmission(a.submissionId)).toBeNull();
    // Another process knows nothing of it and stores it.
    const other = await createMongoDeliveryStore(mongo());
    await other.saveSubmissions([a]);
    expect(await store.getSubmission(a.submissionId)).toEqual(a);
    // A copy the store deleted is stored again by its next save.
    await store.deleteSubmission(b.submissionId);
    await store.saveSubmission(b);
    expect(await store.getSubmission(b.submissionId)).toEqual(b);
  });
});
