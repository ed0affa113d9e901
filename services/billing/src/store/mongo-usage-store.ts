import { randomUUID } from 'node:crypto';
import { duplicateIndexes, existingIds, insertOnce, type MongoConnection } from '@formgate/store/mongo';
import type { Meter, UsageCount, UsageEntry, UsageStore } from './usage-store.ts';

const collectionsOf = (meter: Meter) =>
  meter === 'submissions'
    ? { entries: 'usage_entries', counters: 'usage_counters' }
    : { entries: `${meter}_usage_entries`, counters: `${meter}_usage_counters` };

interface EntryDoc {
  _id: string;
  orgId: string;
  period: string;
  /** The call that inserted it (absent on entries written before ADR 65: the legacy base counts those). */
  tally?: string;
}

/**
 * One writer's count of one (organization, period) (ADR 65): `count` entries it inserted, committed; `pending` names
 * the call under way (or that died) whose entries are not in `count` yet; `seq` orders its writes. The legacy base
 * (`writer: ''`) counts the entries written before counters existed, once.
 */
interface CounterDoc {
  _id: string;
  orgId: string;
  period: string;
  writer: string;
  count: number;
  seq: number;
  pending?: string;
}

const LEGACY = '';
const counterId = (writer: string, orgId: string, period: string) => JSON.stringify([writer, orgId, period]);
const slotOf = (e: { orgId: string; period: string }) => `${e.orgId}\u0000${e.period}`;

/** Another call of the same writer moved the counter (a zombie consumer after a rebalance): the bus retries. */
class UsageCounterMovedError extends Error {
  readonly retryable = true;
  constructor(id: string) {
    super(`usage counter ${id} was written by another call of its writer meanwhile`);
    this.name = 'UsageCounterMovedError';
  }
}

/**
 * `UsageStore` on MongoDB 7+ or FerretDB 1.24: a ledger of one document per entry (`_id` = submission or delivery id;
 * one collection per meter) for idempotency, and exact counts kept per writer (ADR 65) in `*_counters`, so that a
 * count costs a few small documents instead of a `countDocuments` over the month (which FerretDB answers by reading
 * every entry: it grew with the period and was most of what P12 cost the database).
 *
 * Each writer (a consumer partition: calls of one writer never overlap) has its own counter document per
 * (organization, period) — one writer per document (ADR 55). A call reserves (`pending` = its tally, `seq` + 1,
 * conditional on the `seq` it read), inserts its entries marked with that tally, then commits (`count` += what it
 * actually inserted, `pending` unset). A call that died in between leaves `pending`: the next call of that writer,
 * and every read, counts that tally's entries (at most one batch) — so what was inserted is counted exactly once,
 * whatever the redelivery then finds taken. A count is the sum of the (organization, period)'s counters.
 *
 * Purged organizations are tombstoned in `purged_orgs` (`_id` = orgId). Without transactions the tombstone is
 * written before the purge deletes, and `recordUsage` looks for it again after its writes and deletes what it wrote
 * if it is there.
 */
export async function createMongoUsageStore(
  conn: MongoConnection,
  options: { meter?: Meter } = {},
): Promise<UsageStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoUsageStore: the connection is not open');
  const meters = (['submissions', 'emails'] as const).map((m) => ({
    entries: db.collection<EntryDoc>(collectionsOf(m).entries),
    counters: db.collection<CounterDoc>(collectionsOf(m).counters),
  }));
  const names = collectionsOf(options.meter ?? 'submissions');
  const entries = db.collection<EntryDoc>(names.entries);
  const counters = db.collection<CounterDoc>(names.counters);
  const purged = db.collection<{ _id: string }>('purged_orgs');
  for (const meter of meters) {
    await meter.entries.createIndex({ orgId: 1, period: 1 }, { name: 'org_period' });
    await meter.entries.createIndex({ tally: 1 }, { name: 'tally' });
    await meter.counters.createIndex({ orgId: 1, period: 1 }, { name: 'org_period' });
  }
  const purgedAmong = (orgIds: Iterable<string>) => existingIds(purged, orgIds);
  const inTally = (tally: string, orgId: string, period: string) => entries.countDocuments({ tally, orgId, period });

  /**
   * The entries written before counters, counted once per (organization, period) into an insert-only counter by the
   * first read that finds none (a concurrent one's insert wins; both counted the same untallied entries).
   */
  async function writeLegacyBase(orgId: string, period: string): Promise<void> {
    const count = await entries.countDocuments({ orgId, period, tally: { $exists: false } });
    const _id = counterId(LEGACY, orgId, period);
    await insertOnce(counters.insertOne({ _id, orgId, period, writer: LEGACY, count, seq: 0 }));
    // A purge that ran meanwhile may have deleted the counters before this one was written: it goes too.
    if ((await purgedAmong([orgId])).has(orgId)) await counters.deleteMany({ orgId });
  }

  /**
   * The committed counts of an (organization, period), its legacy base included (written first when missing), plus
   * what died or is under way (`pending`).
   */
  async function count(orgId: string, period: string): Promise<number> {
    let docs = await counters.find({ orgId, period }).toArray();
    if (!docs.some((d) => d.writer === LEGACY)) {
      await writeLegacyBase(orgId, period);
      docs = await counters.find({ orgId, period }).toArray();
    }
    const pending = await Promise.all(docs.map((d) => (d.pending ? inTally(d.pending, orgId, period) : 0)));
    return docs.reduce((sum, d, i) => sum + d.count + (pending[i] ?? 0), 0);
  }

  /**
   * A counter write that matched nothing: the organization was purged meanwhile (its counters deleted; the caller
   * deletes what it wrote), or another call of the same writer moved the counter.
   */
  async function notMatched(_id: string, orgId: string): Promise<void> {
    if ((await purgedAmong([orgId])).has(orgId)) return;
    throw new UsageCounterMovedError(_id);
  }

  /** Reserves the writer's counter of one slot for `tally`, folding in a pending tally left by a call that died. */
  async function reserve(writer: string, orgId: string, period: string, tally: string) {
    const _id = counterId(writer, orgId, period);
    const found = await counters.findOne({ _id });
    if (!found) {
      const doc = { _id, orgId, period, writer, count: 0, seq: 1, pending: tally };
      if (!(await insertOnce(counters.insertOne(doc)))) throw new UsageCounterMovedError(_id);
      return { _id, orgId, base: 0, seq: 1 };
    }
    const base = found.count + (found.pending ? await inTally(found.pending, orgId, period) : 0);
    const seq = found.seq + 1;
    const moved = await counters.updateOne({ _id, seq: found.seq }, { $set: { count: base, seq, pending: tally } });
    if (moved.matchedCount === 0) await notMatched(_id, orgId);
    return { _id, orgId, base, seq };
  }

  async function record(batch: UsageEntry[], writer: string): Promise<UsageCount[]> {
    const gone = await purgedAmong(batch.map((e) => e.orgId));
    const docs = new Map<string, EntryDoc>();
    const slots = new Map<string, { orgId: string; period: string }>();
    const tally = randomUUID();
    for (const e of batch.filter((x) => !gone.has(x.orgId))) {
      docs.set(e.id, { _id: e.id, orgId: e.orgId, period: e.period, tally });
      slots.set(slotOf(e), { orgId: e.orgId, period: e.period });
    }
    if (docs.size === 0) return [];
    const reserved = new Map<string, Awaited<ReturnType<typeof reserve>>>();
    for (const [slot, { orgId, period }] of slots) reserved.set(slot, await reserve(writer, orgId, period, tally));
    const written = [...docs.values()];
    const taken = new Set(await entries.insertMany(written, { ordered: false }).then(() => [], duplicateIndexes));
    const inserted = new Map<string, number>();
    for (const [i, d] of written.entries()) {
      if (!taken.has(i)) inserted.set(slotOf(d), (inserted.get(slotOf(d)) ?? 0) + 1);
    }
    for (const [slot, r] of reserved) {
      const done = await counters.updateOne(
        { _id: r._id, seq: r.seq },
        { $set: { count: r.base + (inserted.get(slot) ?? 0) }, $unset: { pending: '' } },
      );
      if (done.matchedCount === 0) await notMatched(r._id, r.orgId);
    }
    const goneSince = await purgedAmong([...slots.values()].map((s) => s.orgId));
    for (const orgId of goneSince) {
      await entries.deleteMany({ orgId });
      await counters.deleteMany({ orgId });
    }
    const live = [...slots.values()].filter((s) => !goneSince.has(s.orgId));
    return Promise.all(live.map(async (s) => ({ ...s, used: await count(s.orgId, s.period) })));
  }

  return {
    recordUsage: record,
    getUsage: (scope, period) => count(scope.orgId, period),
    async purgeOrganization(scope) {
      await insertOnce(purged.insertOne({ _id: scope.orgId }));
      for (const meter of meters) {
        await meter.entries.deleteMany({ orgId: scope.orgId });
        await meter.counters.deleteMany({ orgId: scope.orgId });
      }
    },
    async close() {},
  };
}
