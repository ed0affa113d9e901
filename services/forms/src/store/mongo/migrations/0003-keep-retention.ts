import type { MongoMigration } from '@formgate/store/mongo';
import { Collections } from '../schema.ts';

/**
 * Retention (issue 31): `form_submissions.form_live_time` (formId, deleted, createdAt) finds a form's oldest live
 * submissions (no `deleted`) without walking the tombstones the retention leaves behind it. Defaults live in
 * `form_org_retention` by `_id`.
 */
export const keepRetention: MongoMigration = {
  version: 3,
  name: 'index live submissions by time',
  async up(db) {
    await db
      .collection(Collections.submissions)
      .createIndex({ formId: 1, deleted: 1, createdAt: 1, _id: 1 }, { name: 'form_live_time' });
  },
};
