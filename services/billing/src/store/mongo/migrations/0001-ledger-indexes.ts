import type { MongoMigration } from '@formgate/store/mongo';

/**
 * Billing's first indexes. `purged_orgs`, `freed_forms`, `subscriptions` and `subscription_events` are read by `_id`
 * only; the counters (`createMongoWriterCounters`) and ledgers by the keys below.
 */
export const ledgerIndexes: MongoMigration = {
  version: 1,
  name: 'create usage, held and storage indexes',
  async up(db) {
    for (const meter of ['usage', 'emails_usage']) {
      await db.collection(`${meter}_entries`).createIndex({ orgId: 1, period: 1 }, { name: 'org_period' });
      await db.collection(`${meter}_entries`).createIndex({ tally: 1 }, { name: 'tally' });
      await db.collection(`${meter}_counters`).createIndex({ orgId: 1, period: 1 }, { name: 'org_period' });
    }
    for (const ledger of ['held_submissions', 'deferred_emails']) {
      await db.collection(ledger).createIndex({ orgId: 1, held: 1 }, { name: 'org_held' });
    }
    await db.collection('stored_files').createIndex({ orgId: 1, freed: 1 }, { name: 'org_freed' });
    await db.collection('stored_files').createIndex({ formId: 1 }, { name: 'form' });
  },
};
