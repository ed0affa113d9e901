import type { SqliteDb } from '@formgate/store/sqlite';
import type { HeldStore } from '../held-store.ts';
import type { HeldEntry, HeldLedger } from '../records.ts';

/** The held submissions' ledger's table, or the deferred emails' (the same guarantees, another table). */
const TABLES: Record<HeldLedger, string> = { submissions: 'held_submissions', emails: 'deferred_emails' };

/**
 * `HeldStore` on SQLite: one row per entry ever held or released (`held` 1 or 0), in transactions. The ledger is
 * held submissions (`submissions`, the default) or deferred email deliveries (`emails`: ids are delivery ids); the
 * purge tombstones are shared with the usage ledgers.
 */
export function createSqliteHeldStore(db: SqliteDb, options: { ledger?: HeldLedger } = {}): HeldStore {
  const table = TABLES[options.ledger ?? 'submissions'];
  const isPurged = db.prepare('SELECT 1 FROM purged_orgs WHERE org_id = ?').pluck();
  const insertHeld = db.prepare(`INSERT OR IGNORE INTO ${table} (submission_id, org_id, held) VALUES (?, ?, 1)`);
  const markReleased = db.prepare(
    `INSERT INTO ${table} (submission_id, org_id, held) VALUES (?, ?, 0)
     ON CONFLICT (submission_id) DO UPDATE SET held = 0`,
  );
  const count = db.prepare(`SELECT COUNT(*) FROM ${table} WHERE org_id = ? AND held = 1`).pluck();
  const orgs = db.prepare(`SELECT DISTINCT org_id FROM ${table} WHERE held = 1`).pluck();
  const tombstone = db.prepare('INSERT OR IGNORE INTO purged_orgs (org_id) VALUES (?)');
  const remove = db.prepare(`DELETE FROM ${table} WHERE org_id = ?`);

  const write = (statement: typeof insertHeld) =>
    db.transaction((entries: HeldEntry[]) => {
      for (const e of entries) if (isPurged.get(e.orgId) === undefined) statement.run(e.id, e.orgId);
    });
  const hold = write(insertHeld);
  const release = write(markReleased);
  const purge = db.transaction((orgId: string) => {
    tombstone.run(orgId);
    remove.run(orgId);
  });

  return {
    hold: async (entries) => hold(entries),
    release: async (entries) => release(entries),
    countHeld: async (scope) => count.get(scope.orgId) as number,
    orgsWithHeld: async () => orgs.all() as string[],
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
