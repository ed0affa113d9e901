import { MIGRATIONS_COLLECTION, type MongoDb } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { createMongoAccountsStore, migrateMongoAccounts, mongoAccountsMigrations } from '../src/mongo/index.ts';

const mongo = useTestMongo();

/** A collection's indexes besides `_id_`, by name, with their keys. */
const indexes = async (db: MongoDb, collection: string) =>
  (await db.collection(collection).indexes())
    .filter((i) => i.name !== '_id_')
    .map((i) => [i.name, i.key])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));

describe('accounts MongoDB migrations', () => {
  it('upgrade a database of the previous build: its indexes kept, the missing ones made, outbox rows completed', async () => {
    const db = mongo().db as MongoDb;
    // The shape before: better-auth's collections, their documents and the indexes its adapter makes, two of
    // Formgate's indexes as the previous build made them at start (the driver's default names), no ledger; and
    // outbox rows from before the topic, state and time were required (absent, or null).
    await db.collection('member').insertOne({ organizationId: 'org-1', userId: 'user-1', role: 'owner' });
    await db.collection('member').createIndex({ userId: 1 }, { name: 'member_userId_idx' });
    await db.collection('member').createIndex({ organizationId: 1, userId: 1 });
    await db.collection('organization').insertOne({ name: 'Acme', slug: 'acme', stripeCustomerId: 'cus_1' });
    await db
      .collection('subscription')
      .insertOne({ referenceId: 'org-1', stripeSubscriptionId: 'sub_1', stripeCustomerId: 'cus_1' });
    await db.collection('subscription').createIndex({ referenceId: 1 });
    await db
      .collection('stripeEvent')
      .insertOne({ stripeEventId: 'evt_1', stripeSubscriptionId: 'sub_1', outcome: 'applied', created: 1 });
    const outbox = db.collection('orgEventOutbox');
    await outbox.insertMany([
      { eventId: 'e1', orgId: 'org-1', payload: '{}' },
      { eventId: 'e2', orgId: 'org-1', payload: '{}', topic: null, state: null, recordedAt: null },
      { eventId: 'e3', orgId: 'org-1', payload: '{}', topic: 'billing.subscription', state: 'intent', recordedAt: 5 },
    ]);

    await createMongoAccountsStore(db).prepare({});

    expect(await indexes(db, 'member')).toEqual([
      ['member_userId_idx', { userId: 1 }],
      ['organizationId_1_userId_1', { organizationId: 1, userId: 1 }],
    ]);
    expect(await indexes(db, 'organization')).toEqual([['stripeCustomerId_1', { stripeCustomerId: 1 }]]);
    expect(await indexes(db, 'subscription')).toEqual([
      ['referenceId_1', { referenceId: 1 }],
      ['stripeCustomerId_1', { stripeCustomerId: 1 }],
      ['stripeSubscriptionId_1', { stripeSubscriptionId: 1 }],
    ]);
    expect(await indexes(db, 'stripeEvent')).toEqual([
      ['stripeSubscriptionId_1_outcome_1_created_-1', { stripeSubscriptionId: 1, outcome: 1, created: -1 }],
    ]);
    expect(await indexes(db, 'ssoProvider')).toEqual([['organizationId_1', { organizationId: 1 }]]);
    for (const collection of ['member', 'organization', 'subscription', 'stripeEvent'])
      expect({ collection, n: await db.collection(collection).countDocuments() }).toEqual({ collection, n: 1 });
    const rows = await outbox.find({}, { sort: { eventId: 1 } }).toArray();
    expect(rows.map((r) => [r.eventId, r.topic, r.state, r.recordedAt])).toEqual([
      ['e1', 'orgs.organization', 'ready', 0],
      ['e2', 'orgs.organization', 'ready', 0],
      ['e3', 'billing.subscription', 'intent', 5],
    ]);
    const ledger = await db.collection(MIGRATIONS_COLLECTION).find({ scope: 'accounts' }).toArray();
    expect(ledger.map((d) => [d._id, d.version, d.name]).sort()).toEqual([
      ['accounts:0001', 1, mongoAccountsMigrations[0]?.name],
      ['accounts:0002', 2, mongoAccountsMigrations[1]?.name],
      ['accounts:0003', 3, mongoAccountsMigrations[2]?.name],
    ]);
    expect(await migrateMongoAccounts(db)).toEqual({ scope: 'accounts', applied: [], version: 3 });
  });
});
