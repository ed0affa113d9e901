import type { MongoMigration } from '@formgate/store/mongo';
import { Collections } from '../schema.ts';

/**
 * The indexes of the forms store. The other collections are read by `_id` only (one document per form, per
 * organization or per change). FerretDB 1.24 uses an index for `_id` equality only: there these serve uniqueness,
 * and the reads use the equality pushdown and page buckets instead (`@formgate/store/mongo`).
 * - `forms`: `org_slug` (unique: a slug per organization), `key` (unique: the public endpoint), `org_created` (an
 *   organization's forms, oldest first).
 * - `form_outbox`: `form_version` (a form's versions, for claims).
 * - `form_submissions`: `form_page` (formId, buckets, seq: a page is an equality on the first two, sorted by the
 *   third); `form_seq_time` (a date range, checked on the index keys while walking the form's list, and the export
 *   of a whole form); `form_spam`, `form_held`, `form_terms` (multikey: a search walks the list of its first term),
 *   each ending in `seq: -1` so a filtered page needs no sort; `org_held` (an organization's oldest held).
 * `createIndex` is safe to run again, as a Mongo migration must be.
 */
export const createFormsSchema: MongoMigration = {
  version: 1,
  name: 'create forms, form outbox and submissions indexes',
  async up(db) {
    const forms = db.collection(Collections.forms);
    const submissions = db.collection(Collections.submissions);
    await Promise.all([
      forms.createIndex({ orgId: 1, slug: 1 }, { unique: true, name: 'org_slug' }),
      forms.createIndex({ key: 1 }, { unique: true, name: 'key' }),
      forms.createIndex({ orgId: 1, createdAt: 1, _id: 1 }, { name: 'org_created' }),
      db.collection(Collections.formOutbox).createIndex({ formId: 1, version: 1 }, { name: 'form_version' }),
      submissions.createIndex({ formId: 1, buckets: 1, seq: -1 }, { name: 'form_page' }),
      submissions.createIndex({ formId: 1, seq: -1, createdAt: 1 }, { name: 'form_seq_time' }),
      submissions.createIndex({ formId: 1, 'spam.isSpam': 1, seq: -1 }, { name: 'form_spam' }),
      submissions.createIndex({ formId: 1, held: 1, seq: -1 }, { name: 'form_held' }),
      submissions.createIndex({ formId: 1, terms: 1, seq: -1 }, { name: 'form_terms' }),
      submissions.createIndex({ orgId: 1, held: 1, createdAt: 1, _id: 1 }, { name: 'org_held' }),
    ]);
  },
};
