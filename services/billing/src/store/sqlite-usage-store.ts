import type { SqliteDb } from '@formgate/store/sqlite';
import type { UsageCount, UsageEntry, UsageStore } from './usage-store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS usage_entries (
  submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, period TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS usage_counters (
  org_id TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (org_id, period)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS purged_orgs (org_id TEXT PRIMARY KEY) WITHOUT ROWID;
`;

/** `UsageStore` on SQLite: entries, counters and tombstones change in one transaction. */
export function createSqliteUsageStore(db: SqliteDb): UsageStore {
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT OR IGNORE INTO usage_entries (submission_id, org_id, period) VALUES (?, ?, ?)');
  const bump = db.prepare(
    'INSERT INTO usage_counters (org_id, period, used) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET used = used + excluded.used',
  );
  const read = db.prepare('SELECT used FROM usage_counters WHERE org_id = ? AND period = ?');

  const isPurged = db.prepare('SELECT 1 FROM purged_orgs WHERE org_id = ?').pluck();
  const tombstone = db.prepare('INSERT OR IGNORE INTO purged_orgs (org_id) VALUES (?)');
  const purgeEntries = db.prepare('DELETE FROM usage_entries WHERE org_id = ?');
  const purgeCounters = db.prepare('DELETE FROM usage_counters WHERE org_id = ?');
  const purge = db.transaction((orgId: string) => {
    tombstone.run(orgId);
    purgeEntries.run(orgId);
    purgeCounters.run(orgId);
  });

  const record = db.transaction((entries: UsageEntry[]) => {
    const touched = new Map<string, UsageCount>();
    const purged = new Map<string, boolean>();
    const live = (orgId: string) => {
      if (!purged.has(orgId)) purged.set(orgId, isPurged.get(orgId) !== undefined);
      return !purged.get(orgId);
    };
    for (const e of entries.filter((x) => live(x.orgId))) {
      const slot = `${e.orgId}\u0000${e.period}`;
      const count = touched.get(slot) ?? { orgId: e.orgId, period: e.period, used: 0 };
      count.used += insert.run(e.submissionId, e.orgId, e.period).changes;
      touched.set(slot, count);
    }
    return [...touched.values()].map((c) => {
      if (c.used > 0) bump.run(c.orgId, c.period, c.used);
      return { ...c, used: (read.get(c.orgId, c.period) as { used: number } | undefined)?.used ?? 0 };
    });
  });

  return {
    recordUsage: async (entries) => record(entries),
    getUsage: async (scope, period) => (read.get(scope.orgId, period) as { used: number } | undefined)?.used ?? 0,
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
