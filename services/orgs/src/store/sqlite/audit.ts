import type { SqliteDb } from '@formgate/store/sqlite';
import { chainAuditEntry } from '../audit-chain.ts';
import type { AuditStore } from '../audit-store.ts';
import type { AuditEntry, AuditFilter } from '../records.ts';

interface AuditRow {
  id: string;
  type: string;
  actor: string | null;
  occurred_at: string;
  data: string;
  seq: number;
  prev_hash: string;
  hash: string;
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  type: row.type,
  actor: row.actor === null ? null : (JSON.parse(row.actor) as AuditEntry['actor']),
  occurredAt: row.occurred_at,
  data: JSON.parse(row.data) as Record<string, string>,
  seq: row.seq,
  prevHash: row.prev_hash,
  hash: row.hash,
});

/** The filter's conditions as SQL, with their parameters in order. */
function filterSql(filter: AuditFilter | undefined): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (filter?.types?.length) {
    parts.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
    params.push(...filter.types);
  }
  if (filter?.actorEmail) {
    parts.push("lower(json_extract(actor, '$.email')) = ?");
    params.push(filter.actorEmail.toLowerCase());
  }
  if (filter?.from) {
    parts.push('occurred_at >= ?');
    params.push(filter.from);
  }
  if (filter?.to) {
    parts.push('occurred_at < ?');
    params.push(filter.to);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

/**
 * `AuditStore` on SQLite (`audit_log`, migrations 1 and 2): pages by the index `audit_log_newest`, chains by
 * `audit_log_chain` (org_id, seq). An append reads the chain's head and inserts in one transaction, and the file has
 * one writer, so the chain never forks.
 */
export function createSqliteAuditStore(db: SqliteDb): AuditStore {
  const q = {
    exists: db.prepare('SELECT 1 FROM audit_log WHERE id = ?'),
    head: db.prepare('SELECT seq, hash FROM audit_log WHERE org_id = ? ORDER BY seq DESC LIMIT 1'),
    insert: db.prepare(
      `INSERT INTO audit_log (id, org_id, type, actor, occurred_at, data, seq, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    chain: db.prepare('SELECT * FROM audit_log WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
    purge: db.prepare('DELETE FROM audit_log WHERE org_id = ?'),
  };
  const append = db.transaction((orgId: string, entry: Parameters<AuditStore['appendAudit']>[1]) => {
    if (q.exists.get(entry.id)) return false;
    const e = chainAuditEntry({ orgId }, entry, q.head.get(orgId) as { seq: number; hash: string } | undefined);
    const actor = e.actor === null ? null : JSON.stringify(e.actor);
    q.insert.run(e.id, orgId, e.type, actor, e.occurredAt, JSON.stringify(e.data), e.seq, e.prevHash, e.hash);
    return true;
  });

  return {
    appendAudit: async (scope, entry) => append.immediate(scope.orgId, entry),
    async listAudit(scope, { limit, after, filter }) {
      const where = filterSql(filter);
      const keyset = after ? ' AND (occurred_at < ? OR (occurred_at = ? AND id < ?))' : '';
      const rows = db
        .prepare(
          `SELECT * FROM audit_log WHERE org_id = ?${keyset}${where.sql} ORDER BY occurred_at DESC, id DESC LIMIT ?`,
        )
        .all(scope.orgId, ...(after ? [after.occurredAt, after.occurredAt, after.id] : []), ...where.params, limit);
      return (rows as AuditRow[]).map(toEntry);
    },
    async readChain(scope, { afterSeq, limit }) {
      return (q.chain.all(scope.orgId, afterSeq, limit) as AuditRow[]).map(toEntry);
    },
    purge: async (scope) => void q.purge.run(scope.orgId),
    async close() {},
  };
}
