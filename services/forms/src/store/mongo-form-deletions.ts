import { ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
import type { FormDeletion, FormsStore } from './forms-store.ts';
import { FIELD_NAMES } from './mongo-field-names.ts';
import { COUNTERS, SUBMISSIONS } from './mongo-submissions.ts';

interface DeletionDoc {
  _id: string;
  orgId: string;
  key: string;
  version: number;
}

type DeletionMethods = Pick<FormsStore, 'purgeOrganization' | 'listUnpublishedDeletions' | 'markDeletionPublished'>;

/**
 * The purge and deletion outbox of the Mongo `FormsStore` (collections `forms`, `form_submissions`,
 * `form_counters`, and `form_deletions`). Without transactions the purge goes in steps that can each be repeated:
 * the deletions are written first, then submissions (form by form, on the `form_page` index) and counters go, and
 * the forms last, so a purge cut short leaves the forms for the redelivered event to find again.
 */
export function createMongoFormDeletions(db: MongoDb): DeletionMethods {
  const forms = db.collection<{ _id: string; orgId: string; key: string; version: number }>('forms');
  const submissions = db.collection<{ _id: string; formId: string }>(SUBMISSIONS);
  const counters = db.collection<{ _id: string; orgId: string }>(COUNTERS);
  const deletions = db.collection<DeletionDoc>('form_deletions');

  return {
    async purgeOrganization(scope) {
      const doomed = await forms
        .find({ orgId: scope.orgId }, { projection: { _id: 1, orgId: 1, key: 1, version: 1 } })
        .toArray();
      if (doomed.length > 0) {
        const docs = doomed.map((f) => ({ _id: f._id, orgId: f.orgId, key: f.key, version: f.version + 1 }));
        await deletions.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
      }
      for (const f of doomed) await submissions.deleteMany({ formId: f._id });
      await counters.deleteMany({ orgId: scope.orgId });
      await db.collection('submission_changes').deleteMany({ orgId: scope.orgId });
      await db.collection<{ _id: string; orgId: string }>('form_change_counters').deleteMany({ orgId: scope.orgId });
      await db.collection(FIELD_NAMES).deleteMany({ orgId: scope.orgId });
      await db.collection<{ _id: string }>('release_ledgers').deleteOne({ _id: scope.orgId });
      // Only the forms that have their deletion written: one created meanwhile is not deleted unannounced.
      if (doomed.length === 0) return 0;
      const { deletedCount } = await forms.deleteMany({ _id: { $in: doomed.map((f) => f._id) } });
      return deletedCount;
    },
    async listUnpublishedDeletions(limit) {
      if (limit <= 0) return [];
      const docs = await deletions.find({}).limit(limit).toArray();
      return docs.map((d): FormDeletion => ({ formId: d._id, orgId: d.orgId, key: d.key, version: d.version }));
    },
    async markDeletionPublished(formId) {
      await deletions.deleteOne({ _id: formId });
    },
  };
}
