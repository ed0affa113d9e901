import { type Form, withDefaultSettings } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import { groupByForm } from './batch-order.ts';
import { type FormDeletion, type FormsStore, SlugTakenError } from './forms-store.ts';
import { createSqliteBlockedCounts } from './sqlite-blocked-counts.ts';
import { prepareFormsSchema } from './sqlite-forms-schema.ts';
import { createSqliteHeldSubmissions } from './sqlite-held-submissions.ts';
import { createSqliteInsertCounters, createSqliteSubmissionChanges } from './sqlite-submission-changes.ts';
import { createSqliteSubmissionQuery, prepareSubmissionQuerySchema } from './sqlite-submission-query.ts';
import type { StoredSubmission, SubmissionRecord } from './submission-record.ts';

type SubmissionBody = Pick<SubmissionRecord, 'fields' | 'files' | 'spam' | 'held' | 'origin' | 'referer' | 'meta'>;

interface SubmissionRow {
  id: string;
  form_id: string;
  org_id: string;
  created_at: string;
  seq: number;
  doc: string;
}

const toRecord = (row: SubmissionRow): StoredSubmission => {
  const { fields, files, spam, held, origin, referer } = JSON.parse(row.doc) as SubmissionBody;
  return {
    id: row.id,
    formId: row.form_id,
    orgId: row.org_id,
    createdAt: row.created_at,
    fields,
    files,
    spam,
    held,
    ...(origin !== undefined ? { origin } : {}),
    ...(referer !== undefined ? { referer } : {}),
    seq: row.seq,
  };
};

/**
 * `FormsStore` on SQLite: the submissions, their positions and their counter change in one transaction, so counts
 * are exact and positions dense; a page is a range on the (`form_id`, `seq`) index.
 */
export function createSqliteFormsStore(db: SqliteDb): FormsStore {
  prepareFormsSchema(db);
  // Before the changes' one-time backfill, whose document updates the search triggers index.
  prepareSubmissionQuerySchema(db);
  // Before the changes, whose purge of a form deletes its blocked counts too.
  const { purgeBlockedOrg, ...blocked } = createSqliteBlockedCounts(db);
  const changes = createSqliteSubmissionChanges(db);
  const held = createSqliteHeldSubmissions(db, toRecord);
  const countInserted = createSqliteInsertCounters(db);
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
      'INSERT OR IGNORE INTO submissions (id, form_id, org_id, created_at, doc, seq) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    nextSeq: db.prepare('SELECT next_seq FROM form_counters WHERE form_id = ?'),
    bumpCounter: db.prepare(
      `INSERT INTO form_counters (form_id, submissions, next_seq) VALUES (?, ?, ?)
       ON CONFLICT DO UPDATE SET submissions = submissions + excluded.submissions, next_seq = excluded.next_seq`,
    ),
    firstPage: db.prepare(
      'SELECT * FROM submissions WHERE form_id = ? AND org_id = ? AND deleted = 0 ORDER BY seq DESC LIMIT ?',
    ),
    nextPage: db.prepare(
      'SELECT * FROM submissions WHERE form_id = ? AND org_id = ? AND seq < ? AND deleted = 0 ORDER BY seq DESC LIMIT ?',
    ),
    getSubmission: db.prepare('SELECT * FROM submissions WHERE org_id = ? AND form_id = ? AND id = ? AND deleted = 0'),
    count: db.prepare(
      'SELECT c.submissions AS n FROM form_counters c JOIN forms f ON f.id = c.form_id WHERE f.org_id = ? AND c.form_id = ?',
    ),
    deletionsOf: db.prepare(
      `INSERT OR IGNORE INTO form_deletions (form_id, org_id, key, version)
       SELECT id, org_id, key, version + 1 FROM forms WHERE org_id = ?`,
    ),
    purgeCounters: db.prepare('DELETE FROM form_counters WHERE form_id IN (SELECT id FROM forms WHERE org_id = ?)'),
    purgeDays: db.prepare('DELETE FROM form_days WHERE form_id IN (SELECT id FROM forms WHERE org_id = ?)'),
    purgeChanges: db.prepare('DELETE FROM submission_changes WHERE form_id IN (SELECT id FROM forms WHERE org_id = ?)'),
    purgeSubmissions: db.prepare('DELETE FROM submissions WHERE org_id = ?'),
    purgeForms: db.prepare('DELETE FROM forms WHERE org_id = ?'),
    purgeLedger: db.prepare('DELETE FROM release_ledgers WHERE org_id = ?'),
    deletions: db.prepare('SELECT form_id, org_id, key, version FROM form_deletions LIMIT ?'),
    forgetDeletion: db.prepare('DELETE FROM form_deletions WHERE form_id = ?'),
  };
  const parseForm = (row: unknown) =>
    row ? withDefaultSettings(JSON.parse((row as { doc: string }).doc) as Form) : null;

  const insertSubmissions = db.transaction((records: SubmissionRecord[]) => {
    let total = 0;
    for (const { formId, records: rs } of groupByForm(records)) {
      let next = (q.nextSeq.get(formId) as { next_seq: number } | undefined)?.next_seq ?? 0;
      const stored: SubmissionRecord[] = [];
      for (const r of rs) {
        const { id, orgId, createdAt, fields, files, spam, held, origin, referer, meta } = r;
        // A held or spam submission keeps its reserved fields for its release (`meta`, issue 13 and 14); a visible
        // one has no use for them.
        const keep = held || spam.isSpam;
        const doc = JSON.stringify({ fields, files, spam, held, origin, referer, ...(keep ? { meta } : {}) });
        if (q.insertSubmission.run(id, formId, orgId, createdAt, doc, next).changes === 0) continue;
        next += 1;
        stored.push(r);
      }
      if (stored.length > 0) q.bumpCounter.run(formId, stored.filter((r) => !r.held).length, next);
      countInserted(formId, stored);
      total += stored.length;
    }
    return total;
  });

  const purgeOrganization = db.transaction((orgId: string) => {
    q.deletionsOf.run(orgId);
    q.purgeCounters.run(orgId);
    q.purgeDays.run(orgId);
    q.purgeChanges.run(orgId);
    q.purgeSubmissions.run(orgId);
    q.purgeLedger.run(orgId);
    purgeBlockedOrg(orgId);
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
    // IMMEDIATE: it reads next_seq before writing, and a deferred transaction that another connection wrote past
    // fails with SQLITE_BUSY at its first write instead of waiting (the bench seeds from a second process).
    insertSubmissions: async (records) => insertSubmissions.immediate(records),
    async listSubmissions(scope, formId, { limit, after }) {
      const rows = after
        ? q.nextPage.all(formId, scope.orgId, after.seq, limit)
        : q.firstPage.all(formId, scope.orgId, limit);
      return (rows as SubmissionRow[]).map(toRecord);
    },
    async getSubmission(scope, formId, id) {
      const row = q.getSubmission.get(scope.orgId, formId, id) as SubmissionRow | undefined;
      return row ? toRecord(row) : null;
    },
    async countSubmissions(scope, formId) {
      return (q.count.get(scope.orgId, formId) as { n: number } | undefined)?.n ?? 0;
    },
    ...createSqliteSubmissionQuery(db, toRecord),
    purgeOrganization: async (scope) => purgeOrganization(scope.orgId),
    async listUnpublishedDeletions(limit) {
      const rows = q.deletions.all(limit) as { form_id: string; org_id: string; key: string; version: number }[];
      return rows.map((r): FormDeletion => ({ formId: r.form_id, orgId: r.org_id, key: r.key, version: r.version }));
    },
    async markDeletionPublished(formId) {
      q.forgetDeletion.run(formId);
    },
    ...changes,
    ...held,
    ...blocked,
    async close() {},
  };
}
