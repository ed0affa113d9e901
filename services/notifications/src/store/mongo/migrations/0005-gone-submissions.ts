import type { MongoMigration } from '@formgate/store/mongo';

/**
 * The tombstones of deleted submissions (erased, expired or deleted through the API): read by `_id` (the submission
 * id) by the consumers of `ingest.submission` that are behind, purged with their organization (`org`).
 */
export const goneSubmissions: MongoMigration = {
  version: 5,
  name: 'create gone submission indexes',
  async up(db) {
    await db.collection('gone_submissions').createIndex({ orgId: 1 }, { name: 'org' });
  },
};
