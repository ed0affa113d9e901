import { createMongoTombstones, createMongoWriterCounters, type MongoDb } from '@formgate/store/mongo';
import type { Meter, UsageCount, UsageEntry } from '../records.ts';
import type { UsageStore } from '../usage-store.ts';

/** The submissions meter's collections are unprefixed; every other meter's are prefixed with its name. */
const collectionsOf = (meter: Meter) =>
  meter === 'submissions'
    ? { entries: 'usage_entries', counters: 'usage_counters' }
    : { entries: `${meter}_usage_entries`, counters: `${meter}_usage_counters` };

/**
 * `UsageStore` on MongoDB 7+ or FerretDB 1.24: a ledger of one document per entry (`_id` = submission or delivery id;
 * one collection per meter) for idempotency, and exact counts kept per writer (`createMongoWriterCounters`, ADR 65),
 * so that a count costs a few small documents instead of a `countDocuments` over the month (which FerretDB answers
 * by reading every entry: it grew with the period and was most of what P12 cost the database).
 *
 * Purged organizations are tombstoned in `purged_orgs` (`_id` = orgId; shared with the other billing stores), before
 * the purge deletes; `recordUsage` looks for the tombstone again after its writes and deletes what it wrote if it is
 * there (`createMongoTombstones`).
 */
export function createMongoUsageStore(db: MongoDb, options: { meter?: Meter } = {}): UsageStore {
  const purged = createMongoTombstones(db, 'purged_orgs');
  const countersOf = (meter: Meter) =>
    createMongoWriterCounters(db, { ...collectionsOf(meter), isPurged: (orgId) => purged.has(orgId) });
  const counters = countersOf(options.meter ?? 'submissions');
  const everyMeter = [countersOf('submissions'), countersOf('emails')];

  async function record(batch: UsageEntry[], writer: string): Promise<UsageCount[]> {
    const gone = await purged.guard(
      batch,
      (e) => e.orgId,
      (live) => counters.add(live, writer),
      (orgId) => counters.purge(orgId),
    );
    const slots = new Map<string, { orgId: string; period: string }>();
    for (const e of batch) if (!gone.has(e.orgId)) slots.set(`${e.orgId}\u0000${e.period}`, e);
    return Promise.all(
      [...slots.values()].map(async ({ orgId, period }) => ({
        orgId,
        period,
        used: await counters.count({ orgId, period }),
      })),
    );
  }

  return {
    recordUsage: record,
    getUsage: (scope, period) => counters.count({ orgId: scope.orgId, period }),
    async purgeOrganization(scope) {
      await purged.add(scope.orgId);
      for (const meter of everyMeter) await meter.purge(scope.orgId);
    },
    async close() {},
  };
}
