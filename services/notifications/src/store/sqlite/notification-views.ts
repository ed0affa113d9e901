import type { SqliteDb } from '@formgate/store/sqlite';
import type { NotificationViews } from '../notification-views.ts';
import type { FormView, StoredSubmission } from '../records.ts';

/** `NotificationViews` on SQLite: the forms view and the submission copies, one statement or transaction each. */
export function createSqliteNotificationViews(db: SqliteDb): NotificationViews {
  const s = {
    upsertForm: db.prepare(
      `INSERT INTO forms_view (id, version, deleted, doc) VALUES (@id, @version, 0, @doc)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = 0, doc = excluded.doc
       WHERE excluded.version > forms_view.version`,
    ),
    deleteForm: db.prepare(
      `INSERT INTO forms_view (id, version, deleted, doc) VALUES (?, ?, 1, NULL)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = 1, doc = NULL
       WHERE excluded.version >= forms_view.version`,
    ),
    // By primary key; the organization is a condition on the one row found.
    getForm: db
      .prepare("SELECT doc FROM forms_view WHERE id = ? AND deleted = 0 AND json_extract(doc, '$.orgId') = ?")
      .pluck(),
    getFormUnscoped: db.prepare('SELECT deleted, doc FROM forms_view WHERE id = ?'),
    saveSubmission: db.prepare('INSERT OR IGNORE INTO submissions (id, doc) VALUES (?, ?)'),
    getSubmission: db.prepare("SELECT doc FROM submissions WHERE id = ? AND json_extract(doc, '$.orgId') = ?").pluck(),
    deleteSubmission: db.prepare('DELETE FROM submissions WHERE id = ?'),
  };
  const saveSubmissions = db.transaction((submissions: StoredSubmission[]) => {
    for (const sub of submissions) s.saveSubmission.run(sub.submissionId, JSON.stringify(sub));
  });
  return {
    async applyForm(form) {
      s.upsertForm.run({ id: form.id, version: form.version, doc: JSON.stringify(form) });
    },
    async deleteForm(formId, version) {
      s.deleteForm.run(formId, version);
    },
    async getForm({ orgId }, formId) {
      const doc = s.getForm.get(formId, orgId) as string | undefined;
      return doc ? (JSON.parse(doc) as FormView) : null;
    },
    async getFormUnscoped(formId) {
      const row = s.getFormUnscoped.get(formId) as { deleted: number; doc: string | null } | undefined;
      if (!row) return null;
      return row.deleted || !row.doc ? 'deleted' : (JSON.parse(row.doc) as FormView);
    },
    saveSubmissions: async (submissions) => saveSubmissions(submissions),
    async getSubmission({ orgId }, submissionId) {
      const doc = s.getSubmission.get(submissionId, orgId) as string | undefined;
      return doc ? (JSON.parse(doc) as StoredSubmission) : null;
    },
    async deleteSubmission(submissionId) {
      s.deleteSubmission.run(submissionId);
    },
  };
}
