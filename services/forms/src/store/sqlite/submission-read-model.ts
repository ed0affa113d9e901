import { checkBlobKey } from '@formgate/store';
import type { SqliteDb } from '@formgate/store/sqlite';
import { groupByForm } from '../batch-order.ts';
import { storedCsvLine } from '../csv-lines.ts';
import type { StoredCounts, StoredDailyCount, SubmissionRecord } from '../records.ts';
import { formToken } from '../search-terms.ts';
import { dayOf } from '../submission-changes.ts';
import type { SubmissionReadModel } from '../submission-read-model.ts';
import { SUBMISSION_COLUMNS, type SubmissionBody, type SubmissionRow, toRecord } from './schema.ts';
import { createSqliteSubmissionQuery } from './submission-query.ts';

/**
 * Counts what `insertSubmissions` stored, inside its transaction: spam, last submission and days of the visible
 * ones (the total is counted with the positions), held ones only as held.
 */
function createInsertCounters(db: SqliteDb) {
  const counter = db.prepare(
    `UPDATE form_counters SET spam = spam + ?, held = held + ?, last_at = MAX(COALESCE(last_at, ''), ?)
     WHERE form_id = ?`,
  );
  const day = db.prepare(
    `INSERT INTO form_days (form_id, day, total, spam) VALUES (?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET total = total + excluded.total, spam = spam + excluded.spam`,
  );
  return (formId: string, stored: SubmissionRecord[]) => {
    if (stored.length === 0) return;
    let spam = 0;
    let held = 0;
    let last = '';
    const days = new Map<string, { total: number; spam: number }>();
    for (const r of stored) {
      if (r.held) {
        held += 1;
        continue;
      }
      const isSpam = r.spam.isSpam ? 1 : 0;
      spam += isSpam;
      if (r.createdAt > last) last = r.createdAt;
      const d = days.get(dayOf(r.createdAt)) ?? { total: 0, spam: 0 };
      days.set(dayOf(r.createdAt), { total: d.total + 1, spam: d.spam + isSpam });
    }
    for (const [key, d] of days) day.run(formId, key, d.total, d.spam);
    counter.run(spam, held, last, formId);
  };
}

/**
 * The longest CSV line kept with a row, in characters (ADR 85): the position index holds it, and an index entry of a
 * line this long still fits one cell of a 4 KiB page (about 1,000 bytes) when it is ASCII. A row whose line is longer
 * is exported from its document.
 */
const KEPT_LINE_MAX = 900;

/**
 * What the insert of a form's submissions derives from them, inside its transaction (ADR 80, 81): the form's new
 * field names (its CSV columns, in the order first seen), each submission's kept CSV line, and its search rows — the
 * `submission_search` row (the FTS rowid) and the FTS row of its field values. Done here rather than by an insert
 * trigger over the stored JSON, which SQLite's `json_each` made cost more than the rest of the insert. Changes and
 * deletes of a document are re-indexed by the triggers of migration 1, and forget its line (migration 3).
 */
function createInsertDerivations(db: SqliteDb) {
  const search = db.prepare('INSERT INTO submission_search (submission_id) VALUES (?)');
  const fts = db.prepare('INSERT INTO submissions_fts (rowid, form, body) VALUES (?, ?, ?)');
  const names = db.prepare('SELECT name FROM form_field_names WHERE form_id = ? ORDER BY n').pluck();
  const addName = db.prepare('INSERT OR IGNORE INTO form_field_names (form_id, name) VALUES (?, ?)');
  /** For one form, in one transaction: its columns are read once, then kept up to date by `csvLine`. */
  return (formId: string) => {
    const token = formToken(formId);
    const positions = new Map((names.all(formId) as string[]).map((name, i) => [name, i]));
    return {
      /** Adds the submission's new field names to the form's columns; its CSV line for them. */
      csvLine(r: SubmissionRecord) {
        for (const f of r.fields) {
          if (positions.has(f.name)) continue;
          addName.run(formId, f.name);
          positions.set(f.name, positions.size);
        }
        const kept = storedCsvLine(r, positions);
        return kept.line.length > KEPT_LINE_MAX ? { line: null, width: null } : kept;
      },
      /** The search rows of a submission just inserted. */
      index(r: SubmissionRecord) {
        const rowid = search.run(r.id).lastInsertRowid;
        let body = '';
        for (const f of r.fields) body = body === '' ? f.value : `${body} ${f.value}`;
        fts.run(rowid, token, body);
      },
    };
  };
}

interface CounterRow {
  form_id: string;
  submissions: number;
  spam: number;
  last_at: string | null;
  held: number;
}

/**
 * `SubmissionReadModel` on SQLite: the submissions, their positions and their counters change in one transaction,
 * so counts are exact and positions dense; a page is a range on the (`form_id`, `seq`, …) index.
 */
export function createSqliteSubmissionReadModel(db: SqliteDb): SubmissionReadModel {
  const countInserted = createInsertCounters(db);
  const derive = createInsertDerivations(db);
  const live = `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE form_id = ? AND org_id = ?`;
  const q = {
    dropContent: db.prepare('UPDATE submissions SET doc = ? WHERE id = ?'),
    submissionFile: db.prepare('INSERT OR IGNORE INTO submission_files (blob_key, submission_id) VALUES (?, ?)'),
    fileReferences: db
      .prepare('SELECT blob_key FROM submission_files WHERE blob_key IN (SELECT value FROM json_each(?))')
      .pluck(),
    // The doc's update makes the CSV line be computed again from it (trigger of migration 3): the same line.
    recordFileScan: db.prepare(
      `UPDATE submissions SET doc = json_set(doc, '$.fileScans', json_set(coalesce(doc -> '$.fileScans', '{}'), ?, json(?)))
       WHERE org_id = ? AND form_id = ? AND id = ? AND deleted = 0 AND doc ->> '$.contentDropped' IS NULL`,
    ),
    dropAddresses: db.prepare('DELETE FROM submission_addresses WHERE submission_id = ?'),
    insertSubmission: db.prepare(
      `INSERT OR IGNORE INTO submissions (id, form_id, org_id, created_at, doc, seq, csv_line, csv_width)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    addressKey: db.prepare(
      'INSERT OR IGNORE INTO submission_addresses (org_id, address_key, submission_id) VALUES (?, ?, ?)',
    ),
    nextSeq: db.prepare('SELECT next_seq FROM form_counters WHERE form_id = ?'),
    bumpCounter: db.prepare(
      `INSERT INTO form_counters (form_id, submissions, next_seq) VALUES (?, ?, ?)
       ON CONFLICT DO UPDATE SET submissions = submissions + excluded.submissions, next_seq = excluded.next_seq`,
    ),
    // Index `submissions_by_position` (form_id, seq, …), walked down from the top or from the cursor.
    firstPage: db.prepare(`${live} AND deleted = 0 ORDER BY seq DESC LIMIT ?`),
    nextPage: db.prepare(`${live} AND seq < ? AND deleted = 0 ORDER BY seq DESC LIMIT ?`),
    // Primary key.
    getSubmission: db.prepare(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE org_id = ? AND form_id = ? AND id = ? AND deleted = 0`,
    ),
    // Primary keys of both tables: the counter's form must be the organization's.
    count: db.prepare(
      'SELECT c.submissions AS n FROM form_counters c JOIN forms f ON f.id = c.form_id WHERE f.org_id = ? AND c.form_id = ?',
    ),
    counts: db.prepare(
      `SELECT c.form_id, c.submissions, c.spam, c.last_at, c.held FROM form_counters c JOIN forms f ON f.id = c.form_id
       WHERE f.org_id = ? AND c.form_id IN (SELECT value FROM json_each(?))`,
    ),
    // Primary key (form_id, day) of `form_days`.
    days: db.prepare(
      `SELECT d.day, d.total, d.spam FROM form_days d JOIN forms f ON f.id = d.form_id
       WHERE f.org_id = ? AND d.form_id = ? AND d.day BETWEEN ? AND ? AND d.total > 0 ORDER BY d.day`,
    ),
  };

  const insertSubmissions = db.transaction((records: SubmissionRecord[]) => {
    let total = 0;
    for (const { formId, records: rs } of groupByForm(records)) {
      let next = (q.nextSeq.get(formId) as { next_seq: number } | undefined)?.next_seq ?? 0;
      const derived = derive(formId);
      const stored: SubmissionRecord[] = [];
      for (const r of rs) {
        const { id, orgId, createdAt, fields, files, spam, held, origin, referer, meta, fileScans } = r;
        // A held or spam submission keeps its reserved fields for its release (`meta`, issue 13 and 14); a visible
        // one has no use for them.
        const keep = held || spam.isSpam;
        const doc = JSON.stringify({
          fields,
          files,
          spam,
          held,
          origin,
          referer,
          ...(keep ? { meta } : {}),
          fileScans,
        });
        const csv = derived.csvLine(r);
        if (q.insertSubmission.run(id, formId, orgId, createdAt, doc, next, csv.line, csv.width).changes === 0)
          continue;
        for (const key of r.addressKeys ?? []) q.addressKey.run(orgId, key, id);
        for (const f of files) q.submissionFile.run(f.blobKey, id);
        derived.index(r);
        next += 1;
        stored.push(r);
      }
      if (stored.length > 0) q.bumpCounter.run(formId, stored.filter((r) => !r.held).length, next);
      countInserted(formId, stored);
      total += stored.length;
    }
    return total;
  });

  // The doc's update re-indexes its (now empty) words and forgets its CSV line (triggers of migrations 1 and 3).
  const dropContent = db.transaction((orgId: string, formId: string, id: string) => {
    const row = q.getSubmission.get(orgId, formId, id) as SubmissionRow | undefined;
    if (!row) return false;
    const { spam, held, receivedSpam, spamReleased } = JSON.parse(row.doc) as SubmissionBody;
    const body: SubmissionBody = { fields: [], files: [], spam, held, contentDropped: true };
    if (receivedSpam !== undefined) body.receivedSpam = receivedSpam;
    if (spamReleased !== undefined) body.spamReleased = spamReleased;
    q.dropContent.run(JSON.stringify(body), id);
    q.dropAddresses.run(id);
    return true;
  });

  return {
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
    dropContent: async (scope, formId, id) => dropContent(scope.orgId, formId, id),
    async fileReferences(blobKeys) {
      return new Set(q.fileReferences.all(JSON.stringify(blobKeys)) as string[]);
    },
    async recordFileScan(scope, formId, id, blobKey, scan) {
      checkBlobKey(blobKey);
      const path = `$."${blobKey}"`;
      return q.recordFileScan.run(path, JSON.stringify(scan), scope.orgId, formId, id).changes > 0;
    },
    ...createSqliteSubmissionQuery(db),
    async countSubmissions(scope, formId) {
      return (q.count.get(scope.orgId, formId) as { n: number } | undefined)?.n ?? 0;
    },
    async getFormCounts(scope, formIds) {
      const rows = q.counts.all(scope.orgId, JSON.stringify(formIds)) as CounterRow[];
      return new Map(
        rows.map((r): [string, StoredCounts] => [
          r.form_id,
          {
            submissionCount: r.submissions,
            spamCount: r.spam,
            lastSubmissionAt: r.last_at || null,
            heldCount: r.held,
          },
        ]),
      );
    },
    async getDailyCounts(scope, formId, fromDay, toDay) {
      return q.days.all(scope.orgId, formId, fromDay, toDay) as StoredDailyCount[];
    },
  };
}
