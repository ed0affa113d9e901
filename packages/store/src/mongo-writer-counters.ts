import { randomUUID } from 'node:crypto';
import { duplicateIndexes, insertOnce, type MongoDb } from './mongo.ts';

/** What a count is of: an organization's period. */
export interface CountSlot {
  orgId: string;
  period: string;
}

/** One counted thing: its id counts once, whatever the redeliveries. */
export interface CountedThing extends CountSlot {
  id: string;
}

interface EntryDoc extends CountSlot {
  _id: string;
  /** The call that inserted it. */
  tally: string;
}

/**
 * One writer's count of one slot: `count` entries it inserted, committed; `pending` names the call under way (or
 * that died) whose entries are not in `count` yet; `seq` orders its writes.
 */
interface CounterDoc extends CountSlot {
  _id: string;
  writer: string;
  count: number;
  seq: number;
  pending?: string;
}

/** Another call of the same writer moved the counter (a zombie consumer after a rebalance): the bus retries. */
export class CounterMovedError extends Error {
  override readonly name = 'CounterMovedError';
  readonly retryable = true;
  constructor(id: string) {
    super(`counter ${id} was written by another call of its writer meanwhile`);
  }
}

const counterId = (writer: string, s: CountSlot) => JSON.stringify([writer, s.orgId, s.period]);
const slotKey = (s: CountSlot) => `${s.orgId}\u0000${s.period}`;

/**
 * Exact counts of distinct things per (organization, period), kept per writer (ADR 65): a ledger of one document per
 * thing in `entries` (`_id` = its id: a redelivery inserts nothing) and one counter document per writer and slot in
 * `counters`. A count is the sum of a slot's counters, a few small documents whatever the size of the month.
 *
 * A writer is a stream whose calls never overlap (a consumer's partition), so each counter has one writer (ADR 55).
 * A call reserves its counters (`pending` = a fresh tally, conditional on the `seq` it read), inserts its entries
 * marked with that tally, then commits (`count` + what it inserted, `pending` unset). A call that died in between
 * leaves `pending`: the writer's next call and every read add that tally's entries (one batch at most), so what was
 * inserted counts exactly once.
 *
 * Why per writer: FerretDB 1.24 has neither transactions nor an atomic conditional update (an update reads and writes
 * back the whole document), so two writers of one counter lose increments. On MongoDB 7 one counter per slot, `$inc`
 * by what the `insertMany` inserted, is atomic; a replica set's transaction would also tie the increment to the
 * insert, and the tally with it.
 *
 * Indexes (created by the store's migrations): `entries` `org_period` {orgId, period} (purges) and `tally`
 * {tally} (a pending tally's count); `counters` `org_period` {orgId, period} (a slot's counters, purges).
 */
export function createMongoWriterCounters(
  db: MongoDb,
  opts: {
    entries: string;
    counters: string;
    /** Whether the organization was purged: a counter write that matches nothing is then expected, not an error. */
    isPurged: (orgId: string) => Promise<boolean>;
  },
) {
  const entries = db.collection<EntryDoc>(opts.entries);
  const counters = db.collection<CounterDoc>(opts.counters);
  // Index `tally` (equality on orgId and period filtered after it).
  const inTally = (tally: string, s: CountSlot) => entries.countDocuments({ tally, orgId: s.orgId, period: s.period });

  /** A counter write that matched nothing: the organization was purged meanwhile, or another call moved it. */
  async function notMatched(id: string, orgId: string): Promise<void> {
    if (!(await opts.isPurged(orgId))) throw new CounterMovedError(id);
  }

  /** Reserves the writer's counter of one slot for `tally`, folding in a pending tally left by a call that died. */
  async function reserve(writer: string, slot: CountSlot, tally: string) {
    const _id = counterId(writer, slot);
    const found = await counters.findOne({ _id }); // by _id
    if (!found) {
      const doc = { _id, ...slot, writer, count: 0, seq: 1, pending: tally };
      if (!(await insertOnce(counters.insertOne(doc)))) throw new CounterMovedError(_id);
      return { _id, slot, base: 0, seq: 1 };
    }
    const base = found.count + (found.pending ? await inTally(found.pending, slot) : 0);
    const seq = found.seq + 1;
    // By _id; the `seq` condition is atomic on MongoDB, not on FerretDB (ADR 65: the zombie window).
    const moved = await counters.updateOne({ _id, seq: found.seq }, { $set: { count: base, seq, pending: tally } });
    if (moved.matchedCount === 0) await notMatched(_id, slot.orgId);
    return { _id, slot, base, seq };
  }

  return {
    /** Records `things` under `writer` (one call of it at a time); returns the slots they touched. */
    async add(things: CountedThing[], writer: string): Promise<CountSlot[]> {
      const tally = randomUUID();
      const docs = new Map<string, EntryDoc>();
      const slots = new Map<string, CountSlot>();
      for (const t of things) {
        docs.set(t.id, { _id: t.id, orgId: t.orgId, period: t.period, tally });
        slots.set(slotKey(t), { orgId: t.orgId, period: t.period });
      }
      const reserved = [];
      for (const slot of slots.values()) reserved.push(await reserve(writer, slot, tally));
      const written = [...docs.values()];
      const taken = new Set(await entries.insertMany(written, { ordered: false }).then(() => [], duplicateIndexes));
      const inserted = new Map<string, number>();
      for (const [i, d] of written.entries()) {
        if (!taken.has(i)) inserted.set(slotKey(d), (inserted.get(slotKey(d)) ?? 0) + 1);
      }
      for (const r of reserved) {
        // By _id, as `reserve`'s.
        const done = await counters.updateOne(
          { _id: r._id, seq: r.seq },
          { $set: { count: r.base + (inserted.get(slotKey(r.slot)) ?? 0) }, $unset: { pending: '' } },
        );
        if (done.matchedCount === 0) await notMatched(r._id, r.slot.orgId);
      }
      return [...slots.values()];
    },

    /** The committed counts of the slot plus what died or is under way (`pending`). */
    async count(slot: CountSlot): Promise<number> {
      const docs = await counters.find({ orgId: slot.orgId, period: slot.period }).toArray(); // index org_period
      const pending = await Promise.all(docs.map((d) => (d.pending ? inTally(d.pending, slot) : 0)));
      return docs.reduce((sum, d, i) => sum + d.count + (pending[i] ?? 0), 0);
    },

    /** Deletes every entry and counter of the organization (index `org_period` on both, by its prefix). */
    async purge(orgId: string): Promise<void> {
      await entries.deleteMany({ orgId });
      await counters.deleteMany({ orgId });
    },
  };
}
