import type { SqliteDb } from '@formgate/store/sqlite';
import type { Meter, UsageCount, UsageEntry } from '../records.ts';
import type { UsageStore } from '../usage-store.ts';

/** The submissions meter's tables are unprefixed; every other meter's are prefixed with its name. */
const tablesOf = (meter: Meter) =>
  meter === 'submissions'
    ? { entries: 'usage_entries', counters: 'usage_counters' }
    : { entries: `${meter}_usage_entries`, counters: `${meter}_usage_counters` };

/**
 * `UsageStore` on SQLite (tables of migration 1): entries, counters and tombstones change in one transaction. One store per meter on the
 * same database; the tombstones are shared (a purge through any meter's store purges every meter's ledger).
 */
export function createSqliteUsageStore(db: SqliteDb, options: { meter?: Meter } = {}): UsageStore {
  const tables = tablesOf(options.meter ?? 'submissions');
  const every = (['submissions', 'emails'] as const).map(tablesOf);
  const insert = db.prepare(`INSERT OR IGNORE INTO ${tables.entries} (submission_id, org_id, period) VALUES (?, ?, ?)`);
  const bump = db.prepare(
    `INSERT INTO ${tables.counters} (org_id, period, used) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET used = used + excluded.used`,
  );
  const read = db.prepare(`SELECT used FROM ${tables.counters} WHERE org_id = ? AND period = ?`);

  const isPurged = db.prepare('SELECT 1 FROM purged_orgs WHERE org_id = ?').pluck();
  const tombstone = db.prepare('INSERT OR IGNORE INTO purged_orgs (org_id) VALUES (?)');
  const purges = every.flatMap((t) => [
    db.prepare(`DELETE FROM ${t.entries} WHERE org_id = ?`),
    db.prepare(`DELETE FROM ${t.counters} WHERE org_id = ?`),
  ]);
  const purge = db.transaction((orgId: string) => {
    tombstone.run(orgId);
    for (const p of purges) p.run(orgId);
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
      count.used += insert.run(e.id, e.orgId, e.period).changes;
      touched.set(slot, count);
    }
    return [...touched.values()].map((c) => {
      if (c.used > 0) bump.run(c.orgId, c.period, c.used);
      return { ...c, used: (read.get(c.orgId, c.period) as { used: number } | undefined)?.used ?? 0 };
    });
  });

  return {
    recordUsage: async (entries, _writer) => record(entries),
    getUsage: async (scope, period) => (read.get(scope.orgId, period) as { used: number } | undefined)?.used ?? 0,
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
