import type { SqliteDb } from '@formgate/store/sqlite';
import type { AuditStore } from '../audit-store.ts';
import type { AuditEntry } from '../records.ts';

interface AuditRow {
  id: string;
  type: string;
  actor: string | null;
  occurred_at: string;
  data: string;
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  type: row.type,
  actor: row.actor === null ? null : (JSON.parse(row.actor) as AuditEntry['actor']),
  occurredAt: row.occurred_at,
  data: JSON.parse(row.data) as Record<string, string>,
});

/** `AuditStore` on SQLite (`audit_log`, migration 1); pages by the index `audit_log_newest`. */
export function createSqliteAuditStore(db: SqliteDb): AuditStore {
  const q = {
    insert: db.prepare(
      'INSERT OR IGNORE INTO audit_log (id, org_id, type, actor, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    firstPage: db.prepare('SELECT * FROM audit_log WHERE org_id = ? ORDER BY occurred_at DESC, id DESC LIMIT ?'),
    nextPage: db.prepare(
      `SELECT * FROM audit_log WHERE org_id = ? AND (occurred_at < ? OR (occurred_at = ? AND id < ?))
       ORDER BY occurred_at DESC, id DESC LIMIT ?`,
    ),
    purge: db.prepare('DELETE FROM audit_log WHERE org_id = ?'),
  };

  return {
    async appendAudit(scope, e) {
      const actor = e.actor === null ? null : JSON.stringify(e.actor);
      const { changes } = q.insert.run(e.id, scope.orgId, e.type, actor, e.occurredAt, JSON.stringify(e.data));
      return changes === 1;
    },
    async listAudit(scope, { limit, after }) {
      const rows = after
        ? q.nextPage.all(scope.orgId, after.occurredAt, after.occurredAt, after.id, limit)
        : q.firstPage.all(scope.orgId, limit);
      return (rows as AuditRow[]).map(toEntry);
    },
    purge: async (scope) => void q.purge.run(scope.orgId),
    async close() {},
  };
}
