import type { Form } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import { type FormDeletion, type FormsStore, SlugTakenError, type SubmissionRecord } from './forms-store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS forms (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, slug TEXT NOT NULL, key TEXT NOT NULL UNIQUE,
  doc TEXT NOT NULL, version INTEGER NOT NULL, published_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, UNIQUE (org_id, slug)
);
CREATE INDEX IF NOT EXISTS forms_unpublished ON forms (id) WHERE published_version < version;
CREATE TABLE IF NOT EXISTS submissions (
  id TEXT PRIMARY KEY, form_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_by_form ON submissions (form_id, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS form_counters (form_id TEXT PRIMARY KEY, submissions INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS form_deletions (
  form_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL
);
`;

type StoredSubmission = Omit<SubmissionRecord, 'id' | 'formId' | 'orgId' | 'createdAt'>;

const toRecord = (row: { id: string; form_id: string; org_id: string; created_at: string; doc: string }) => ({
  id: row.id,
  formId: row.form_id,
  orgId: row.org_id,
  createdAt: row.created_at,
  ...(JSON.parse(row.doc) as StoredSubmission),
});

/** `FormsStore` on SQLite: the submissions and their counter change in one transaction, so counts are exact. */
export function createSqliteFormsStore(db: SqliteDb): FormsStore {
  db.exec(SCHEMA);
  const q = {
    insertForm: db.prepare(
      'INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    getForm: db.prepare('SELECT doc FROM forms WHERE org_id = ? AND id = ?'),
    getBySlug: db.prepare('SELECT doc FROM forms WHERE org_id = ? AND slug = ?'),
    listForms: db.prepare('SELECT doc FROM forms WHERE org_id = ? ORDER BY created_at, id'),
    replaceForm: db.prepare('UPDATE forms SET doc = ?, version = ?, slug = ? WHERE id = ? AND version = ?'),
    unpublished: db.prepare('SELECT doc FROM forms WHERE published_version < version LIMIT ?'),
    markPublished: db.prepare('UPDATE forms SET published_version = ? WHERE id = ? AND published_version < ?'),
    insertSubmission: db.prepare(
      'INSERT OR IGNORE INTO submissions (id, form_id, org_id, created_at, doc) VALUES (?, ?, ?, ?, ?)',
    ),
    bumpCounter: db.prepare(
      'INSERT INTO form_counters (form_id, submissions) VALUES (?, ?) ON CONFLICT DO UPDATE SET submissions = submissions + excluded.submissions',
    ),
    firstPage: db.prepare(
      'SELECT * FROM submissions WHERE form_id = ? AND org_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    ),
    nextPage: db.prepare(
      `SELECT * FROM submissions WHERE form_id = ? AND org_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    getSubmission: db.prepare('SELECT * FROM submissions WHERE org_id = ? AND form_id = ? AND id = ?'),
    count: db.prepare(
      'SELECT c.submissions AS n FROM form_counters c JOIN forms f ON f.id = c.form_id WHERE f.org_id = ? AND c.form_id = ?',
    ),
    deletionsOf: db.prepare(
      `INSERT OR IGNORE INTO form_deletions (form_id, org_id, key, version)
       SELECT id, org_id, key, version + 1 FROM forms WHERE org_id = ?`,
    ),
    purgeCounters: db.prepare('DELETE FROM form_counters WHERE form_id IN (SELECT id FROM forms WHERE org_id = ?)'),
    purgeSubmissions: db.prepare('DELETE FROM submissions WHERE org_id = ?'),
    purgeForms: db.prepare('DELETE FROM forms WHERE org_id = ?'),
    deletions: db.prepare('SELECT form_id, org_id, key, version FROM form_deletions LIMIT ?'),
    forgetDeletion: db.prepare('DELETE FROM form_deletions WHERE form_id = ?'),
  };
  const parseForm = (row: unknown) => (row ? (JSON.parse((row as { doc: string }).doc) as Form) : null);

  const insertSubmissions = db.transaction((records: SubmissionRecord[]) => {
    const added = new Map<string, number>();
    for (const r of records) {
      const { id, formId, orgId, createdAt, ...rest } = r;
      const { changes } = q.insertSubmission.run(id, formId, orgId, createdAt, JSON.stringify(rest));
      if (changes > 0) added.set(formId, (added.get(formId) ?? 0) + 1);
    }
    for (const [formId, n] of added) q.bumpCounter.run(formId, n);
    return [...added.values()].reduce((a, b) => a + b, 0);
  });

  const purgeOrganization = db.transaction((orgId: string) => {
    q.deletionsOf.run(orgId);
    q.purgeCounters.run(orgId);
    q.purgeSubmissions.run(orgId);
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
    listUnpublishedForms: async (limit) => q.unpublished.all(limit).map((r) => parseForm(r) as Form),
    async markFormPublished(formId, version) {
      q.markPublished.run(version, formId, version);
    },
    insertSubmissions: async (records) => insertSubmissions(records),
    async listSubmissions(scope, formId, { limit, after }) {
      const rows = after
        ? q.nextPage.all(formId, scope.orgId, after.createdAt, after.createdAt, after.id, limit)
        : q.firstPage.all(formId, scope.orgId, limit);
      return (rows as Parameters<typeof toRecord>[0][]).map(toRecord);
    },
    async getSubmission(scope, formId, id) {
      const row = q.getSubmission.get(scope.orgId, formId, id) as Parameters<typeof toRecord>[0] | undefined;
      return row ? toRecord(row) : null;
    },
    async countSubmissions(scope, formId) {
      return (q.count.get(scope.orgId, formId) as { n: number } | undefined)?.n ?? 0;
    },
    purgeOrganization: async (scope) => purgeOrganization(scope.orgId),
    async listUnpublishedDeletions(limit) {
      const rows = q.deletions.all(limit) as { form_id: string; org_id: string; key: string; version: number }[];
      return rows.map((r): FormDeletion => ({ formId: r.form_id, orgId: r.org_id, key: r.key, version: r.version }));
    },
    async markDeletionPublished(formId) {
      q.forgetDeletion.run(formId);
    },
    async close() {},
  };
}
