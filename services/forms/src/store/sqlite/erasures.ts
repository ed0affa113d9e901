import type { SignedErasureReceipt } from '@formgate/contracts';
import { type SqliteDb, truncateWal } from '@formgate/store/sqlite';
import type { Erasures, FoundSubmission } from '../erasures.ts';

/** `Erasures` on SQLite: the address keys in `submission_addresses`, receipts in `erasures` (migration 5). */
export function createSqliteErasures(db: SqliteDb): Erasures {
  const q = {
    // Primary key of `submission_addresses` (org_id, address_key, …), then the submission's.
    find: db.prepare(
      `SELECT DISTINCT s.id, s.form_id, s.created_at FROM submission_addresses a
       JOIN submissions s ON s.id = a.submission_id
       WHERE a.org_id = ? AND a.address_key IN (SELECT value FROM json_each(?)) AND s.deleted = 0
       ORDER BY s.created_at, s.id`,
    ),
    save: db.prepare('INSERT OR IGNORE INTO erasures (id, org_id, erased_at, doc) VALUES (?, ?, ?, ?)'),
    // Index `erasures_by_org`.
    list: db.prepare('SELECT doc FROM erasures WHERE org_id = ? ORDER BY erased_at DESC, id DESC LIMIT ?').pluck(),
    // Primary key.
    get: db.prepare('SELECT doc FROM erasures WHERE id = ? AND org_id = ?').pluck(),
    // Partial index `erasures_unaudited`.
    unaudited: db.prepare('SELECT doc FROM erasures WHERE audited = 0 ORDER BY erased_at LIMIT ?').pluck(),
    audited: db.prepare('UPDATE erasures SET audited = 1 WHERE id = ?'),
  };
  return {
    async findByAddressKeys(scope, keys) {
      const rows = q.find.all(scope.orgId, JSON.stringify(keys)) as {
        id: string;
        form_id: string;
        created_at: string;
      }[];
      return rows.map((r): FoundSubmission => ({ id: r.id, formId: r.form_id, createdAt: r.created_at }));
    },
    async saveReceipt(signed) {
      const { receipt } = signed;
      q.save.run(receipt.id, receipt.orgId, receipt.erasedAt, JSON.stringify(signed));
    },
    async listReceipts(scope, limit) {
      return (q.list.all(scope.orgId, limit) as string[]).map((d) => JSON.parse(d) as SignedErasureReceipt);
    },
    async listUnaudited(limit) {
      return (q.unaudited.all(limit) as string[]).map((d) => JSON.parse(d) as SignedErasureReceipt);
    },
    async markAudited(id) {
      q.audited.run(id);
    },
    async compact() {
      // FTS5 keeps the words of a deleted row in its segments until they are merged: merge them all now.
      db.prepare(`INSERT INTO submissions_fts (submissions_fts) VALUES ('optimize')`).run();
      await truncateWal(db);
    },
    async getReceipt(scope, id) {
      const doc = q.get.get(id, scope.orgId) as string | undefined;
      return doc === undefined ? null : (JSON.parse(doc) as SignedErasureReceipt);
    },
  };
}
