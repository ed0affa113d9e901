import type { SqliteDb } from '@formgate/store/sqlite';
import { type BlockedCounts, blockedIncrements } from '../blocked-counts.ts';
import type { BlockedDay } from '../records.ts';

/** Report ids are remembered this long: far beyond any redelivery of the log (reports are short-lived). */
const REPORT_MEMORY_DAYS = 7;

/**
 * `BlockedCounts` on SQLite: a report's counts and its id are one transaction. A form's counts go with the form
 * (`purgeDeletedForm`) or its organization (`purgeOrganization`).
 */
export function createSqliteBlockedCounts(db: SqliteDb): BlockedCounts {
  const q = {
    seen: db.prepare('INSERT OR IGNORE INTO blocked_reports (id, at) VALUES (?, ?)'),
    forget: db.prepare('DELETE FROM blocked_reports WHERE at < ?'),
    add: db.prepare(
      `INSERT INTO blocked_days (form_id, day, org_id, blocked) VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET blocked = blocked + excluded.blocked`,
    ),
    // Primary key (form_id, day) per form named.
    totals: db.prepare(
      `SELECT form_id, SUM(blocked) AS blocked FROM blocked_days
       WHERE org_id = ? AND form_id IN (SELECT value FROM json_each(?)) AND day BETWEEN ? AND ? GROUP BY form_id`,
    ),
    days: db.prepare(
      `SELECT day, blocked FROM blocked_days WHERE org_id = ? AND form_id = ? AND day BETWEEN ? AND ?
       AND blocked > 0 ORDER BY day`,
    ),
  };
  const record = db.transaction((reportId: string, counts: Parameters<BlockedCounts['recordBlocked']>[1]) => {
    const now = new Date();
    if (q.seen.run(reportId, now.toISOString()).changes === 0) return;
    for (const c of blockedIncrements(counts)) q.add.run(c.formId, c.day, c.orgId, c.n);
    q.forget.run(new Date(now.getTime() - REPORT_MEMORY_DAYS * 86_400_000).toISOString());
  });
  return {
    recordBlocked: async (reportId, counts) => record.immediate(reportId, counts),
    async getBlockedTotals(scope, formIds, fromDay, toDay) {
      const rows = q.totals.all(scope.orgId, JSON.stringify(formIds), fromDay, toDay) as {
        form_id: string;
        blocked: number;
      }[];
      return new Map(rows.filter((r) => r.blocked > 0).map((r) => [r.form_id, r.blocked]));
    },
    async getBlockedDays(scope, formId, fromDay, toDay) {
      return q.days.all(scope.orgId, formId, fromDay, toDay) as BlockedDay[];
    },
  };
}
