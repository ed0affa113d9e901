import type { SqliteDb } from '@formgate/store/sqlite';
import type { HeldSubmissionMethods, ReleaseLedger } from './held-submissions.ts';
import type { StoredSubmission } from './submission-record.ts';

type Row = { id: string; form_id: string; org_id: string; created_at: string; seq: number; doc: string };

/**
 * Held submissions on SQLite: the organization's oldest held ones by a partial index on (`org_id`, `created_at`,
 * `id`) of the live held rows; their count from the forms' counters; the ledger as one JSON row per organization.
 * Run after the other schemas (it indexes their columns); `purgeOrganization` deletes the ledger.
 */
export function createSqliteHeldSubmissions(
  db: SqliteDb,
  toRecord: (row: Row) => StoredSubmission,
): HeldSubmissionMethods {
  db.exec(`
    CREATE INDEX IF NOT EXISTS submissions_held_by_org ON submissions (org_id, created_at, id)
      WHERE held = 1 AND deleted = 0;
    CREATE TABLE IF NOT EXISTS release_ledgers (org_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
  `);
  const q = {
    oldest: db.prepare(
      `SELECT id, form_id, org_id, created_at, seq, doc FROM submissions
       WHERE org_id = ? AND held = 1 AND deleted = 0 ORDER BY created_at, id LIMIT ?`,
    ),
    count: db.prepare(
      'SELECT COALESCE(SUM(c.held), 0) AS n FROM form_counters c JOIN forms f ON f.id = c.form_id WHERE f.org_id = ?',
    ),
    ledger: db.prepare('SELECT doc FROM release_ledgers WHERE org_id = ?'),
    save: db.prepare('INSERT OR REPLACE INTO release_ledgers (org_id, doc) VALUES (?, ?)'),
  };
  return {
    async listOldestHeld(scope, limit) {
      if (limit <= 0) return [];
      return (q.oldest.all(scope.orgId, limit) as Row[]).map(toRecord);
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
