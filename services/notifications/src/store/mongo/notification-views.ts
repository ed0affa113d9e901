import { ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
import { LRUCache } from 'lru-cache';
import type { NotificationViews } from '../notification-views.ts';
import type { FormView, StoredSubmission } from '../records.ts';

interface FormDoc {
  _id: string;
  version: number;
  deleted: boolean;
  form: FormView | null;
}
interface SubmissionDoc {
  _id: string;
  submission: StoredSubmission;
}

/** Submission ids remembered as having their copy stored (`kept`). */
const KEPT_COPIES = 20_000;

/** `NotificationViews` on MongoDB: one document per form (by `_id`), one per submission copy (by `_id`). */
export function createMongoNotificationViews(db: MongoDb): NotificationViews {
  const forms = db.collection<FormDoc>('forms_view');
  const submissions = db.collection<SubmissionDoc>('submissions');
  /**
   * Submissions whose copy this process stored (or found stored) lately. Both consumer groups of `ingest.submission`
   * save the copy of each submission, and FerretDB 1.24 answers an insert with one duplicate by inserting every
   * document again alone, each duplicate a failed statement; MongoDB reports the duplicates of one unordered insert
   * in one answer. A copy never changes, so skipping one known to be there changes nothing.
   */
  const kept = new LRUCache<string, true>({ max: KEPT_COPIES });
  return {
    async applyForm(form) {
      // Matches only an older snapshot; when a newer (or equal) one is there the upsert's insert is a duplicate.
      await forms
        .updateOne(
          { _id: form.id, version: { $lt: form.version } },
          { $set: { version: form.version, deleted: false, form } },
          { upsert: true },
        )
        .catch(ignoreDuplicates);
    },
    async deleteForm(formId, version) {
      await forms
        .updateOne(
          { _id: formId, version: { $lte: version } },
          { $set: { version, deleted: true, form: null } },
          { upsert: true },
        )
        .catch(ignoreDuplicates);
    },
    async getForm(formId) {
      const doc = await forms.findOne({ _id: formId });
      if (!doc) return null;
      return doc.deleted || !doc.form ? 'deleted' : doc.form;
    },
    async saveSubmissions(list) {
      const first = new Map<string, StoredSubmission>();
      for (const submission of list) {
        if (!first.has(submission.submissionId) && !kept.has(submission.submissionId)) {
          first.set(submission.submissionId, submission);
        }
      }
      if (first.size === 0) return;
      // Unordered: every new one is inserted even when some are there already (their duplicate key is ignored).
      const docs = [...first.values()].map((submission) => ({ _id: submission.submissionId, submission }));
      await submissions.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
      for (const id of first.keys()) kept.set(id, true);
    },
    async getSubmission(submissionId) {
      return (await submissions.findOne({ _id: submissionId }))?.submission ?? null;
    },
    async deleteSubmission(submissionId) {
      await submissions.deleteOne({ _id: submissionId });
      kept.delete(submissionId);
    },
  };
}
