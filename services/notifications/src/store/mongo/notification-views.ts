import { createInsertOnce, ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
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

/** Submission ids remembered as having their copy stored. */
const KEPT_COPIES = 20_000;

/** `NotificationViews` on MongoDB: one document per form (by `_id`), one per submission copy (by `_id`). */
export function createMongoNotificationViews(db: MongoDb): NotificationViews {
  const forms = db.collection<FormDoc>('forms_view');
  const submissions = db.collection<SubmissionDoc>('submissions');
  // Both consumer groups of `ingest.submission` save each copy, and a copy never changes.
  const copies = createInsertOnce(submissions, KEPT_COPIES);
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
    async getForm({ orgId }, formId) {
      // Index `_id`, as every read here; the organization is a condition on the one document found.
      return (await forms.findOne({ _id: formId, deleted: false, 'form.orgId': orgId }))?.form ?? null;
    },
    async getFormUnscoped(formId) {
      const doc = await forms.findOne({ _id: formId });
      if (!doc) return null;
      return doc.deleted || !doc.form ? 'deleted' : doc.form;
    },
    async saveSubmissions(list) {
      await copies.insert(list.map((submission) => ({ _id: submission.submissionId, submission })));
    },
    async getSubmission({ orgId }, submissionId) {
      return (await submissions.findOne({ _id: submissionId, 'submission.orgId': orgId }))?.submission ?? null;
    },
    async deleteSubmission(submissionId) {
      await submissions.deleteOne({ _id: submissionId });
      copies.forget(submissionId);
    },
  };
}
