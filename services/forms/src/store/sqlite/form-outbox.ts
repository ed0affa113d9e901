import { type Form, withDefaultSettings } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import type { FormRepository } from '../form-repository.ts';
import type { FormDeletion } from '../records.ts';

type OutboxMethods = Pick<
  FormRepository,
  'listUnpublishedForms' | 'markFormPublished' | 'listUnpublishedDeletions' | 'markDeletionPublished'
>;

/** A `forms.doc` as the API reads it. */
export const parseForm = (row: unknown) =>
  row ? withDefaultSettings(JSON.parse((row as { doc: string }).doc) as Form) : null;

/**
 * The outbox half of the SQLite `FormRepository`: a form's version and its published mark are two columns of its
 * row (written in one statement each), deletions are rows of `form_deletions` until published.
 */
export function createSqliteFormOutbox(db: SqliteDb): OutboxMethods {
  const q = {
    // Index `forms_unpublished` (partial: only the rows behind their mark).
    unpublished: db.prepare('SELECT doc FROM forms WHERE published_version < version LIMIT ?'),
    markPublished: db.prepare('UPDATE forms SET published_version = ? WHERE id = ? AND published_version < ?'),
    deletions: db.prepare('SELECT form_id, org_id, key, version FROM form_deletions LIMIT ?'),
    forgetDeletion: db.prepare('DELETE FROM form_deletions WHERE form_id = ?'),
  };
  return {
    listUnpublishedForms: async (limit) => q.unpublished.all(limit).map((r) => parseForm(r) as Form),
    async markFormPublished(formId, version) {
      q.markPublished.run(version, formId, version);
    },
    async listUnpublishedDeletions(limit) {
      const rows = q.deletions.all(limit) as { form_id: string; org_id: string; key: string; version: number }[];
      return rows.map((r): FormDeletion => ({ formId: r.form_id, orgId: r.org_id, key: r.key, version: r.version }));
    },
    async markDeletionPublished(formId) {
      q.forgetDeletion.run(formId);
    },
  };
}
