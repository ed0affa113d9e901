import type { SqliteDb } from '@formgate/store/sqlite';
import type { SubmissionChange, SubmissionRecord } from '../records.ts';
import {
  type ChangeMeta,
  changes,
  dayOf,
  erasedBy,
  releasedSubmission,
  type SubmissionChanges,
  tombstoneVerdict,
} from '../submission-changes.ts';
import { SUBMISSION_COLUMNS, type SubmissionBody, type SubmissionRow } from './schema.ts';

/**
 * `SubmissionChanges` on SQLite: a change, its counters and its outbox row are one transaction, so changes are
 * counted as they are made (`countSubmissionChanges` has nothing left to do). A deleted submission stays as a row
 * with `deleted = 1` and an emptied document (the tombstone that refuses its redelivery).
 */
export function createSqliteSubmissionChanges(db: SqliteDb): SubmissionChanges {
  const q = {
    // Primary key.
    live: db.prepare(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE org_id = ? AND form_id = ? AND id = ? AND deleted = 0`,
    ),
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
    heldCounter: db.prepare('UPDATE form_counters SET held = held - 1 WHERE form_id = ?'),
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
    // Primary key `n`: the order the changes were made.
    unpublished: db.prepare('SELECT doc FROM submission_changes ORDER BY n LIMIT ?'),
    // Unique index on `id`.
    forget: db.prepare('DELETE FROM submission_changes WHERE id = ?'),
  };

  /** Applies the change to the row and its counters; returns the submission the change carries, if any. */
  function apply(row: SubmissionRow, doc: SubmissionBody, action: SubmissionChange['action']) {
    const { id, form_id: formId, org_id: orgId, created_at: createdAt } = row;
    const wasSpam = doc.spam.isSpam;
    const day = dayOf(createdAt);
    const stored = { ...doc, id, formId, orgId, createdAt };
    if (action === 'release') {
      q.release.run(id);
      q.released.run(wasSpam ? 1 : 0, createdAt, formId);
      q.releasedDay.run(formId, day, wasSpam ? 1 : 0);
      return releasedSubmission(stored, doc.spam);
    }
    if (action === 'delete' || action === 'erase') {
      // The tombstone's update of `deleted` drops its address keys (trigger of migration 5).
      q.tombstone.run(JSON.stringify({ fields: [], files: [], spam: tombstoneVerdict(doc.spam), held: doc.held }), id);
      if (doc.held) {
        q.heldCounter.run(formId);
        return undefined;
      }
      q.counter.run(-1, wasSpam ? -1 : 0, formId);
      q.day.run(-1, wasSpam ? -1 : 0, formId, day);
      return undefined;
    }
    const spam = action === 'spam';
    const receivedSpam = doc.receivedSpam ?? wasSpam;
    let submission: SubmissionRecord | undefined;
    if (!spam && receivedSpam && doc.spamReleased !== true && doc.contentDropped !== true) {
      submission = releasedSubmission(stored, { isSpam: false, reasons: doc.spam.reasons });
      q.spamRelease.run(id);
    } else {
      q.mark.run(String(spam), String(receivedSpam), id);
    }
    q.counter.run(0, spam ? 1 : -1, formId);
    q.day.run(0, spam ? 1 : -1, formId, day);
    return submission;
  }

  const change = db.transaction(
    (orgId: string, formId: string, submissionId: string, action: SubmissionChange['action'], meta: ChangeMeta) => {
      const row = q.live.get(orgId, formId, submissionId) as SubmissionRow | undefined;
      if (!row) return 'not_found' as const;
      const doc = JSON.parse(row.doc) as SubmissionBody;
      const effect = changes(action, doc.spam.isSpam, doc.held === true);
      if (effect !== true) return effect;
      const submission = apply(row, doc, action);
      const event: SubmissionChange = {
        id: meta.id,
        formId,
        orgId,
        submissionId,
        action,
        wasSpam: doc.spam.isSpam,
        receivedAt: row.created_at,
        occurredAt: meta.occurredAt,
        blobKeys: action === 'delete' || action === 'erase' ? doc.files.map((f) => f.blobKey) : [],
        ...(action === 'erase' ? erasedBy(meta, doc.held === true) : {}),
        ...(submission ? { submission } : {}),
      };
      q.outbox.run(meta.id, formId, JSON.stringify(event));
      return 'changed' as const;
    },
  );

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
  };
}
