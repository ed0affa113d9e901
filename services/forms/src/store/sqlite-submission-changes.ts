import type { SubmissionFile } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import type { FormDeletion } from './forms-store.ts';
import {
  changes,
  dayOf,
  type StoredCounts,
  type StoredDailyCount,
  type SubmissionChange,
  type SubmissionChangeMethods,
} from './submission-changes.ts';
import type { SubmissionRecord } from './submission-record.ts';

const TABLES = `
CREATE TABLE IF NOT EXISTS form_days (
  form_id TEXT NOT NULL, day TEXT NOT NULL, total INTEGER NOT NULL, spam INTEGER NOT NULL,
  PRIMARY KEY (form_id, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS submission_changes (
  n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, form_id TEXT NOT NULL, doc TEXT NOT NULL
);
`;

// Tombstones, spam counts, last submission and daily counts (ADR 0020), computed once for existing data.
const COUNTERS = `
ALTER TABLE submissions ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE form_counters ADD COLUMN spam INTEGER NOT NULL DEFAULT 0;
ALTER TABLE form_counters ADD COLUMN last_at TEXT;
UPDATE form_counters SET
  spam = (SELECT COUNT(*) FROM submissions s WHERE s.form_id = form_counters.form_id
          AND json_extract(s.doc, '$.spam.isSpam')),
  last_at = (SELECT MAX(created_at) FROM submissions s WHERE s.form_id = form_counters.form_id);
INSERT OR REPLACE INTO form_days (form_id, day, total, spam)
  SELECT form_id, substr(created_at, 1, 10), COUNT(*), SUM(json_extract(doc, '$.spam.isSpam') IS 1)
  FROM submissions GROUP BY form_id, substr(created_at, 1, 10);
`;

// Held submissions (issue 13) leave every counter but `held` until released; those counted before are moved.
const HELD_OF = (extra: string) =>
  `SELECT COUNT(*) FROM submissions s WHERE s.form_id = form_counters.form_id AND s.deleted = 0
   AND json_extract(s.doc, '$.held') IS 1 ${extra}`;
const HELD = `
ALTER TABLE form_counters ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
UPDATE form_counters SET held = (${HELD_OF('')}),
  submissions = submissions - (${HELD_OF('')}),
  spam = spam - (${HELD_OF(`AND json_extract(s.doc, '$.spam.isSpam') IS 1`)});
UPDATE form_days SET
  total = total - (SELECT COUNT(*) FROM submissions s WHERE s.form_id = form_days.form_id AND s.deleted = 0
    AND substr(s.created_at, 1, 10) = form_days.day AND json_extract(s.doc, '$.held') IS 1),
  spam = spam - (SELECT COUNT(*) FROM submissions s WHERE s.form_id = form_days.form_id AND s.deleted = 0
    AND substr(s.created_at, 1, 10) = form_days.day AND json_extract(s.doc, '$.held') IS 1
    AND json_extract(s.doc, '$.spam.isSpam') IS 1);
`;

/** Adds the tables and columns of submission changes and stats; run after `prepareFormsSchema`. */
export function prepareSubmissionChangesSchema(db: SqliteDb): void {
  db.exec(TABLES);
  const upgraded = db.prepare(`SELECT 1 FROM pragma_table_info('submissions') WHERE name = 'deleted'`).get();
  if (!upgraded) db.transaction(() => db.exec(COUNTERS))();
  const heldCounted = db.prepare(`SELECT 1 FROM pragma_table_info('form_counters') WHERE name = 'held'`).get();
  if (!heldCounted) db.transaction(() => db.exec(HELD))();
}

/**
 * Counts what `insertSubmissions` stored, inside its transaction: spam, last submission and days of the visible
 * ones (the total is counted with the positions), held ones only as held.
 */
export function createSqliteInsertCounters(db: SqliteDb) {
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

interface Row {
  id: string;
  form_id: string;
  org_id: string;
  created_at: string;
  doc: string;
}

type Methods = SubmissionChangeMethods;

/**
 * The submission changes of the SQLite `FormsStore`: a change, its counters and its outbox row are one
 * transaction. A deleted submission stays as a row with `deleted = 1` and an emptied document (the tombstone
 * that refuses its redelivery).
 */
export function createSqliteSubmissionChanges(db: SqliteDb): Methods {
  prepareSubmissionChangesSchema(db);
  const q = {
    live: db.prepare('SELECT * FROM submissions WHERE org_id = ? AND form_id = ? AND id = ? AND deleted = 0'),
    tombstone: db.prepare('UPDATE submissions SET deleted = 1, doc = ? WHERE id = ?'),
    mark: db.prepare(
      `UPDATE submissions SET doc = json_set(doc, '$.spam.isSpam', json(?), '$.receivedSpam', json(?)) WHERE id = ?`,
    ),
    // Released from spam (issue 14): once only, and its reserved fields go with the release.
    spamRelease: db.prepare(
      `UPDATE submissions SET doc = json_remove(json_set(doc, '$.spam.isSpam', json('false'),
       '$.receivedSpam', json('true'), '$.spamReleased', json('true')), '$.meta') WHERE id = ?`,
    ),
    release: db.prepare(`UPDATE submissions SET doc = json_remove(json_set(doc, '$.held', json('false')), '$.meta')
      WHERE id = ?`),
    counter: db.prepare('UPDATE form_counters SET submissions = submissions + ?, spam = spam + ? WHERE form_id = ?'),
    released: db.prepare(
      `UPDATE form_counters SET submissions = submissions + 1, spam = spam + ?, held = held - 1,
       last_at = MAX(COALESCE(last_at, ''), ?) WHERE form_id = ?`,
    ),
    day: db.prepare('UPDATE form_days SET total = total + ?, spam = spam + ? WHERE form_id = ? AND day = ?'),
    releasedDay: db.prepare(
      `INSERT INTO form_days (form_id, day, total, spam) VALUES (?, ?, 1, ?)
       ON CONFLICT DO UPDATE SET total = total + 1, spam = spam + excluded.spam`,
    ),
    outbox: db.prepare('INSERT INTO submission_changes (id, form_id, doc) VALUES (?, ?, ?)'),
    unpublished: db.prepare('SELECT doc FROM submission_changes ORDER BY n LIMIT ?'),
    forget: db.prepare('DELETE FROM submission_changes WHERE id = ?'),
    counts: db.prepare(
      `SELECT c.form_id, c.submissions, c.spam, c.last_at, c.held FROM form_counters c JOIN forms f ON f.id = c.form_id
       WHERE f.org_id = ? AND c.form_id IN (SELECT value FROM json_each(?))`,
    ),
    days: db.prepare(
      `SELECT d.day, d.total, d.spam FROM form_days d JOIN forms f ON f.id = d.form_id
       WHERE f.org_id = ? AND d.form_id = ? AND d.day BETWEEN ? AND ? AND d.total > 0 ORDER BY d.day`,
    ),
    form: db.prepare('SELECT id, org_id, key, version FROM forms WHERE org_id = ? AND id = ?'),
    deletion: db.prepare('INSERT OR IGNORE INTO form_deletions (form_id, org_id, key, version) VALUES (?, ?, ?, ?)'),
    dropForm: db.prepare('DELETE FROM forms WHERE id = ?'),
    files: db.prepare(
      `SELECT doc FROM submissions WHERE form_id = ? AND deleted = 0 AND json_array_length(doc, '$.files') > 0`,
    ),
    purge: [
      'DELETE FROM forms WHERE id = ?',
      'DELETE FROM submissions WHERE form_id = ?',
      'DELETE FROM form_counters WHERE form_id = ?',
      'DELETE FROM form_days WHERE form_id = ?',
      'DELETE FROM submission_changes WHERE form_id = ?',
      'DELETE FROM blocked_days WHERE form_id = ?',
    ].map((sql) => db.prepare(sql)),
  };

  const change = db.transaction(
    (
      orgId: string,
      formId: string,
      submissionId: string,
      action: SubmissionChange['action'],
      meta: { id: string; occurredAt: string },
    ) => {
      const row = q.live.get(orgId, formId, submissionId) as Row | undefined;
      if (!row) return 'not_found' as const;
      const doc = JSON.parse(row.doc) as Omit<SubmissionRecord, 'id' | 'formId' | 'orgId' | 'createdAt'> & {
        /** Ingest's verdict, kept from the first mark on (`spam.isSpam` holds the mark). */
        receivedSpam?: boolean;
        /** Released from spam once already (issue 14): a later not-spam mark releases nothing. */
        spamReleased?: boolean;
      };
      const wasSpam = doc.spam.isSpam;
      const effect = changes(action, wasSpam, doc.held === true);
      if (effect !== true) return effect;
      const day = dayOf(row.created_at);
      let submission: SubmissionRecord | undefined;
      if (action === 'release') {
        const { fields, files, spam, meta, origin, referer } = doc;
        submission = { id: submissionId, formId, orgId, createdAt: row.created_at, fields, files, spam, held: false };
        if (meta !== undefined) submission.meta = meta;
        if (origin !== undefined) submission.origin = origin;
        if (referer !== undefined) submission.referer = referer;
        q.release.run(submissionId);
        q.released.run(wasSpam ? 1 : 0, row.created_at, formId);
        q.releasedDay.run(formId, day, wasSpam ? 1 : 0);
      } else if (action === 'delete') {
        q.tombstone.run(JSON.stringify({ fields: [], files: [], spam: doc.spam, held: doc.held }), submissionId);
        q.counter.run(-1, wasSpam ? -1 : 0, formId);
        q.day.run(-1, wasSpam ? -1 : 0, formId, day);
      } else {
        const spam = action === 'spam';
        const receivedSpam = doc.receivedSpam ?? wasSpam;
        if (!spam && receivedSpam && doc.spamReleased !== true) {
          const { fields, files, meta, origin, referer } = doc;
          const spam = { isSpam: false, reasons: doc.spam.reasons };
          submission = { id: submissionId, formId, orgId, createdAt: row.created_at, fields, files, spam, held: false };
          if (meta !== undefined) submission.meta = meta;
          if (origin !== undefined) submission.origin = origin;
          if (referer !== undefined) submission.referer = referer;
          q.spamRelease.run(submissionId);
        } else {
          q.mark.run(String(spam), String(receivedSpam), submissionId);
        }
        q.counter.run(0, spam ? 1 : -1, formId);
        q.day.run(0, spam ? 1 : -1, formId, day);
      }
      const event: SubmissionChange = {
        id: meta.id,
        formId,
        orgId,
        submissionId,
        action,
        wasSpam,
        receivedAt: row.created_at,
        occurredAt: meta.occurredAt,
        blobKeys: action === 'delete' ? doc.files.map((f) => f.blobKey) : [],
        ...(submission ? { submission } : {}),
      };
      q.outbox.run(meta.id, formId, JSON.stringify(event));
      return 'changed' as const;
    },
  );

  const deleteForm = db.transaction((orgId: string, formId: string) => {
    const form = q.form.get(orgId, formId) as { id: string; org_id: string; key: string; version: number } | undefined;
    if (!form) return false;
    const deletion: FormDeletion = { formId, orgId, key: form.key, version: form.version + 1 };
    q.deletion.run(deletion.formId, deletion.orgId, deletion.key, deletion.version);
    q.dropForm.run(formId);
    return true;
  });

  const purge = db.transaction((formId: string) => {
    for (const statement of q.purge) statement.run(formId);
  });

  return {
    changeSubmission: async (scope, formId, submissionId, action, meta) =>
      change.immediate(scope.orgId, formId, submissionId, action, meta),
    async listUnpublishedSubmissionChanges(limit) {
      return (q.unpublished.all(limit) as { doc: string }[]).map((r) => JSON.parse(r.doc) as SubmissionChange);
    },
    async markSubmissionChangePublished(changeId) {
      q.forget.run(changeId);
    },
    // Counted in the change's own transaction.
    async countSubmissionChanges() {},
    async getFormCounts(scope, formIds) {
      const rows = q.counts.all(scope.orgId, JSON.stringify(formIds)) as {
        form_id: string;
        submissions: number;
        spam: number;
        last_at: string | null;
        held: number;
      }[];
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
    deleteForm: async (scope, formId) => deleteForm.immediate(scope.orgId, formId),
    async listFormBlobKeys(formId) {
      return (q.files.all(formId) as { doc: string }[]).flatMap((r) =>
        (JSON.parse(r.doc) as { files: SubmissionFile[] }).files.map((f) => f.blobKey),
      );
    },
    purgeDeletedForm: async (formId) => purge.immediate(formId),
  };
}
