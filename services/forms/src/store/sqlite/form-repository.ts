import type { Form, SubmissionFile } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import { type FormRepository, SlugTakenError } from '../form-repository.ts';
import type { FormDeletion } from '../records.ts';
import { createSqliteFormOutbox, parseForm } from './form-outbox.ts';

/** What a form keeps besides its row, by table and the column naming the form: a purge deletes them all. */
const FORM_DATA = ['submissions', 'form_counters', 'form_days', 'submission_changes', 'blocked_days'] as const;

/**
 * `FormRepository` on SQLite: a form is a row (its settings as JSON); deleting it, or purging it or its
 * organization, is one transaction with its deletion's outbox row.
 */
export function createSqliteFormRepository(db: SqliteDb): FormRepository {
  const inOrg = (table: string) => `DELETE FROM ${table} WHERE form_id IN (SELECT id FROM forms WHERE org_id = ?)`;
  const q = {
    insertForm: db.prepare(
      'INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    // Primary key; the organization is checked on the row.
    getForm: db.prepare('SELECT doc FROM forms WHERE org_id = ? AND id = ?'),
    // Unique index (org_id, slug).
    getBySlug: db.prepare('SELECT doc FROM forms WHERE org_id = ? AND slug = ?'),
    // Unique index (org_id, slug) for the organization's rows, then sorted (an organization has a handful).
    listForms: db.prepare('SELECT doc FROM forms WHERE org_id = ? ORDER BY created_at, id'),
    replaceForm: db.prepare('UPDATE forms SET doc = ?, version = ?, slug = ? WHERE id = ? AND version = ?'),
    form: db.prepare('SELECT id, org_id, key, version FROM forms WHERE org_id = ? AND id = ?'),
    deletion: db.prepare('INSERT OR IGNORE INTO form_deletions (form_id, org_id, key, version) VALUES (?, ?, ?, ?)'),
    dropForm: db.prepare('DELETE FROM forms WHERE id = ?'),
    // Index `submissions_by_position` (form_id, seq, …): the form's rows, files read from their JSON.
    files: db.prepare(
      `SELECT doc FROM submissions WHERE form_id = ? AND deleted = 0 AND json_array_length(doc, '$.files') > 0`,
    ),
    purgeForm: ['forms', ...FORM_DATA].map((t) =>
      db.prepare(`DELETE FROM ${t} WHERE ${t === 'forms' ? 'id' : 'form_id'} = ?`),
    ),
    deletionsOf: db.prepare(
      `INSERT OR IGNORE INTO form_deletions (form_id, org_id, key, version)
       SELECT id, org_id, key, version + 1 FROM forms WHERE org_id = ?`,
    ),
    purgeOrg: [
      inOrg('form_counters'),
      inOrg('form_days'),
      inOrg('submission_changes'),
      'DELETE FROM submissions WHERE org_id = ?',
      'DELETE FROM release_ledgers WHERE org_id = ?',
      'DELETE FROM org_retention WHERE org_id = ?',
      // Index `erasures_by_org`.
      'DELETE FROM erasures WHERE org_id = ?',
      // Index `blocked_days_by_org`.
      'DELETE FROM blocked_days WHERE org_id = ?',
    ].map((sql) => db.prepare(sql)),
    purgeForms: db.prepare('DELETE FROM forms WHERE org_id = ?'),
  };

  const deleteForm = db.transaction((orgId: string, formId: string) => {
    const form = q.form.get(orgId, formId) as { id: string; org_id: string; key: string; version: number } | undefined;
    if (!form) return null;
    const deletion: FormDeletion = { formId, orgId, key: form.key, version: form.version + 1 };
    q.deletion.run(deletion.formId, deletion.orgId, deletion.key, deletion.version);
    q.dropForm.run(formId);
    return deletion.version;
  });

  const purgeDeletedForm = db.transaction((formId: string) => {
    for (const statement of q.purgeForm) statement.run(formId);
  });

  const purgeOrganization = db.transaction((orgId: string) => {
    q.deletionsOf.run(orgId);
    for (const statement of q.purgeOrg) statement.run(orgId);
    return q.purgeForms.run(orgId).changes;
  });

  return {
    async insertForm(form) {
      try {
        q.insertForm.run(form.id, form.orgId, form.slug, form.key, JSON.stringify(form), form.version, form.createdAt);
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String(err).includes('slug')) {
          throw new SlugTakenError(form.slug);
        }
        throw err;
      }
    },
    getForm: async (scope, formId) => parseForm(q.getForm.get(scope.orgId, formId)),
    getFormBySlug: async (scope, slug) => parseForm(q.getBySlug.get(scope.orgId, slug)),
    listForms: async (scope) => q.listForms.all(scope.orgId).map((r) => parseForm(r) as Form),
    async replaceForm(form, expectedVersion) {
      return q.replaceForm.run(JSON.stringify(form), form.version, form.slug, form.id, expectedVersion).changes === 1;
    },
    deleteForm: async (scope, formId) => deleteForm.immediate(scope.orgId, formId),
    ...createSqliteFormOutbox(db),
    async listFormBlobKeys(formId) {
      return (q.files.all(formId) as { doc: string }[]).flatMap((r) =>
        (JSON.parse(r.doc) as { files: SubmissionFile[] }).files.map((f) => f.blobKey),
      );
    },
    purgeDeletedForm: async (formId) => purgeDeletedForm.immediate(formId),
    purgeOrganization: async (scope) => purgeOrganization.immediate(scope.orgId),
  };
}
