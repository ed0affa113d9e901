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
  it('upgrade a database better-auth has written to once, at start: Formgate’s indexes beside its own', async () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    // The shape before: better-auth's collections, their documents and the indexes its adapter makes, no ledger.
    await db.collection('member').insertOne({ organizationId: 'org-1', userId: 'user-1', role: 'owner' });
    await db.collection('member').createIndex({ userId: 1 }, { name: 'member_userId_idx' });
    await db.collection('organization').insertOne({ name: 'Acme', slug: 'acme', stripeCustomerId: 'cus_1' });
    await db
      .collection('subscription')
      .insertOne({ referenceId: 'org-1', stripeSubscriptionId: 'sub_1', stripeCustomerId: 'cus_1' });
    await db
      .collection('stripeEvent')
      .insertOne({ stripeEventId: 'evt_1', stripeSubscriptionId: 'sub_1', outcome: 'applied', created: 1 });

    await createMongoAccountsStore(db).prepare({});

    expect(await indexes(db, 'member')).toEqual([
      ['member_userId_idx', { userId: 1 }],
      ['org_user', { organizationId: 1, userId: 1 }],
    ]);
    expect(await indexes(db, 'organization')).toEqual([['stripe_customer', { stripeCustomerId: 1 }]]);
    expect(await indexes(db, 'subscription')).toEqual([
      ['reference', { referenceId: 1 }],
      ['stripe_customer', { stripeCustomerId: 1 }],
      ['stripe_subscription', { stripeSubscriptionId: 1 }],
    ]);
    expect(await indexes(db, 'stripeEvent')).toEqual([
      ['subscription_outcome_created', { stripeSubscriptionId: 1, outcome: 1, created: -1 }],
    ]);
    for (const collection of ['member', 'organization', 'subscription', 'stripeEvent'])
      expect({ collection, n: await db.collection(collection).countDocuments() }).toEqual({ collection, n: 1 });
    const ledger = await db.collection(MIGRATIONS_COLLECTION).find({ scope: 'accounts' }).toArray();
    expect(ledger.map((d) => [d._id, d.version, d.name])).toEqual([
      ['accounts:0001', 1, mongoAccountsMigrations[0]?.name],
    ]);
    expect(await migrateMongoAccounts(db)).toEqual({ scope: 'accounts', applied: [], version: 1 });
  });
});
