import type { SqliteDb } from '@formgate/store/sqlite';
import type { HeldSubmissions } from '../held-submissions.ts';
import type { ReleaseLedger } from '../records.ts';
import { SUBMISSION_COLUMNS, type SubmissionRow, toRecord } from './schema.ts';

/**
 * `HeldSubmissions` on SQLite: the organization's oldest held ones by a partial index on (`org_id`, `created_at`,
 * `id`) of the live held rows; their count from the forms' counters; the ledger as one JSON row per organization.
 */
export function createSqliteHeldSubmissions(db: SqliteDb): HeldSubmissions {
  const q = {
    // Index `submissions_held_by_org` (partial: live held rows only), in its order.
    oldest: db.prepare(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions
       WHERE org_id = ? AND held = 1 AND deleted = 0 ORDER BY created_at, id LIMIT ?`,
    ),
    // Unique index (org_id, slug) of `forms`, then each counter by its primary key.
    count: db.prepare(
      'SELECT COALESCE(SUM(c.held), 0) AS n FROM form_counters c JOIN forms f ON f.id = c.form_id WHERE f.org_id = ?',
    ),
    // Primary key.
    ledger: db.prepare('SELECT doc FROM release_ledgers WHERE org_id = ?'),
    save: db.prepare('INSERT OR REPLACE INTO release_ledgers (org_id, doc) VALUES (?, ?)'),
  };
  return {
    async listOldestHeld(scope, limit) {
      if (limit <= 0) return [];
      return (q.oldest.all(scope.orgId, limit) as SubmissionRow[]).map(toRecord);
    },
    async countHeld(scope) {
      return (q.count.get(scope.orgId) as { n: number }).n;
    },
    async getReleaseLedger(scope) {
      const row = q.ledger.get(scope.orgId) as { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as ReleaseLedger) : null;
    },
    async saveReleaseLedger(ledger) {
      q.save.run(ledger.orgId, JSON.stringify(ledger));
    },
  };
}
