import type { SqliteMigration } from '@formgate/store/sqlite';
import { chainAuditEntry } from '../../audit-chain.ts';

interface Row {
  id: string;
  org_id: string;
  type: string;
  actor: string | null;
  occurred_at: string;
  data: string;
}

/**
 * The audit log becomes a hash chain (issue 32): `seq`, `prev_hash` and `hash` per entry, one chain per organization,
 * `seq` unique within it. Entries already there are chained in the order the log showed them (`occurred_at`, `id`).
 */
export const auditChain: SqliteMigration = {
  version: 2,
  name: 'chain the audit log by hash',
  up(db) {
    db.exec(`
ALTER TABLE audit_log ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE audit_log ADD COLUMN prev_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN hash TEXT NOT NULL DEFAULT '';
`);
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY org_id, occurred_at, id').all() as Row[];
    const set = db.prepare('UPDATE audit_log SET seq = ?, prev_hash = ?, hash = ? WHERE id = ?');
    let head: { orgId: string; seq: number; hash: string } | undefined;
    for (const row of rows) {
      const chained = chainAuditEntry(
        { orgId: row.org_id },
        {
          id: row.id,
          type: row.type,
          actor: row.actor === null ? null : JSON.parse(row.actor),
          occurredAt: row.occurred_at,
          data: JSON.parse(row.data),
        },
        head?.orgId === row.org_id ? head : undefined,
      );
      set.run(chained.seq, chained.prevHash, chained.hash, row.id);
      head = { orgId: row.org_id, seq: chained.seq, hash: chained.hash };
    }
    db.exec('CREATE UNIQUE INDEX audit_log_chain ON audit_log (org_id, seq)');
  },
};
