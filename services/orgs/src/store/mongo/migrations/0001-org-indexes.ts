import type { MongoMigration } from '@formgate/store/mongo';

/**
 * The orgs service's first indexes. `organizations`, `org_settings` and `org_spam_published` are read by `_id` only.
 */
export const orgIndexes: MongoMigration = {
  version: 1,
  name: 'create audit and spam version indexes',
  async up(db) {
    await db.collection('audit_log').createIndex({ orgId: 1, occurredAt: -1, _id: -1 }, { name: 'org_newest' });
    await db.collection('org_spam_versions').createIndex({ orgId: 1, version: -1 }, { name: 'org_version' });
    await db.collection('org_spam_outbox').createIndex({ orgId: 1, version: 1 }, { name: 'org_version' });
  },
};
