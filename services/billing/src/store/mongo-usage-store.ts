import { existingIds, isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import type { Meter, UsageCount, UsageStore } from './usage-store.ts';

const collectionOf = (meter: Meter) => (meter === 'submissions' ? 'usage_entries' : `${meter}_usage_entries`);

interface UsageDoc {
  _id: string;
  orgId: string;
  period: string;
}

function onlyDuplicates(err: unknown): boolean {
  const writeErrors = [(err as { writeErrors?: unknown }).writeErrors ?? []].flat() as { code?: number }[];
  return isDuplicateKeyError(err) && writeErrors.length > 0 && writeErrors.every((w) => w.code === 11000);
}

/**
 * `UsageStore` on MongoDB 7+ or FerretDB 1.24: a ledger of one document per entry (`_id` = submission or delivery id;
 * one collection per meter),
 * counted with `countDocuments`, so counts are exact whatever failed before and however many billing instances
 * write at once. Purged organizations are tombstoned in `purged_orgs` (`_id` = orgId).
 *
 * Without transactions the tombstone is written before the purge deletes, and `recordUsage` looks for it again
 * after its insert and deletes what it wrote if it is there: a purge running meanwhile either sees the entries
 * (and deletes them) or ran its tombstone before that second look.
 */
export async function createMongoUsageStore(
  conn: MongoConnection,
  options: { meter?: Meter } = {},
): Promise<UsageStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoUsageStore: the connection is not open');
  const ledgers = (['submissions', 'emails'] as const).map((m) => db.collection<UsageDoc>(collectionOf(m)));
  const entries = db.collection<UsageDoc>(collectionOf(options.meter ?? 'submissions'));
  const purged = db.collection<{ _id: string }>('purged_orgs');
  for (const ledger of ledgers) await ledger.createIndex({ orgId: 1, period: 1 }, { name: 'org_period' });

  const count = (orgId: string, period: string) => entries.countDocuments({ orgId, period });
  const purgedAmong = (orgIds: Iterable<string>) => existingIds(purged, orgIds);

  return {
    async recordUsage(batch) {
      const gone = await purgedAmong(batch.map((e) => e.orgId));
      const docs = new Map<string, UsageDoc>();
      const touched = new Map<string, UsageCount>();
      for (const e of batch.filter((x) => !gone.has(x.orgId))) {
        docs.set(e.id, { _id: e.id, orgId: e.orgId, period: e.period });
        touched.set(`${e.orgId}\u0000${e.period}`, { orgId: e.orgId, period: e.period, used: 0 });
      }
      if (docs.size === 0) return [];
      try {
        await entries.insertMany([...docs.values()], { ordered: false });
      } catch (err) {
        if (!onlyDuplicates(err)) throw err;
      }
      const goneSince = await purgedAmong([...touched.values()].map((c) => c.orgId));
      for (const orgId of goneSince) await entries.deleteMany({ orgId });
      const live = [...touched.values()].filter((c) => !goneSince.has(c.orgId));
      return Promise.all(live.map(async (c) => ({ ...c, used: await count(c.orgId, c.period) })));
    },
    getUsage: (scope, period) => count(scope.orgId, period),
    async purgeOrganization(scope) {
      await purged.insertOne({ _id: scope.orgId }).catch((err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err;
      });
      for (const ledger of ledgers) await ledger.deleteMany({ orgId: scope.orgId });
    },
    async close() {},
  };
}
