import { ignoreDuplicates, type MongoDb } from './mongo.ts';

/** A version of something (a form, an organization's spam defaults) written and not yet confirmed published. */
export interface VersionRecord {
  id: string;
  version: number;
}

/** How often a relay compares what is written with what it published (and at its first pass). */
export const RECONCILE_MS = 5 * 60_000;

/**
 * The outbox of versioned documents on MongoDB and FerretDB with one writer per document (ADR 55): the writers
 * insert a record per version written into `outbox` (`${id}:${version}`; `field` names the id: `formId`,
 * `orgId`); the relays delete them once a version at least as new is published and keep their mark in
 * `published` (a lost mark only republishes). `reconcile` (the caller's: it knows where versions live) finds the
 * versions written without a record — a process died between its write and its record — and runs at a relay's
 * first `pending` call, then every `reconcileMs`; it gets the relays' marks.
 *
 * On MongoDB 7/8 a single-document update is atomic and sets only the fields it names: the writer would set a
 * pending mark on the document in the same update as its version, and a relay clear it with `updateOne({_id,
 * version})`, so neither these records and marks nor the reconciliation would be needed.
 */
export function createVersionOutbox(
  db: MongoDb,
  opts: {
    outbox: string;
    published: string;
    field: string;
    /** The name of the outbox's index on (`field`, `version`). */
    index: string;
    reconcile: (marks: Map<string, number>) => Promise<VersionRecord[]>;
    now?: () => number;
    reconcileMs?: number;
  },
) {
  const outbox = db.collection<{ _id: string; version: number } & Record<string, unknown>>(opts.outbox);
  const published = db.collection<{ _id: string; version: number }>(opts.published);
  const { field } = opts;
  const now = opts.now ?? Date.now;
  const reconcileMs = opts.reconcileMs ?? RECONCILE_MS;
  let reconciledAt: number | undefined;

  const record = async (entries: VersionRecord[]): Promise<void> => {
    if (entries.length === 0) return;
    const docs = entries.map((e) => ({ _id: `${e.id}:${e.version}`, [field]: e.id, version: e.version }));
    await outbox.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
  };

  return {
    createIndex: () => outbox.createIndex({ [field]: 1, version: 1 }, { name: opts.index }),
    record,
    /** Up to `limit` records, oldest versions of a thing first among those read; reconciles first when due. */
    async pending(limit: number): Promise<VersionRecord[]> {
      if (limit <= 0) return [];
      if (reconciledAt === undefined || now() - reconciledAt >= reconcileMs) {
        const marks = new Map<string, number>();
        // A scan of the marks (one per thing), once per `reconcileMs`.
        for await (const p of published.find({})) marks.set(p._id, p.version);
        await record(await opts.reconcile(marks));
        reconciledAt = now();
      }
      // A scan of the outbox, short: its records are deleted once published.
      const docs = await outbox
        .find({}, { projection: { [field]: 1, version: 1 } })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ id: d[field] as string, version: d.version }));
    },
    /** Forgets every record of these ids (deleted since: their deletion has its own way out). */
    forget: async (ids: string[]) => {
      // Index `opts.index` (by its prefix); FerretDB 1.24 scans the (short) outbox for an `$in` instead.
      if (ids.length > 0) await outbox.deleteMany({ [field]: { $in: ids } });
    },
    /** Forgets the thing entirely: its records and its mark (a purge). */
    async purge(id: string): Promise<void> {
      // Index `opts.index` (by its prefix), then the mark by `_id`.
      await outbox.deleteMany({ [field]: id });
      await published.deleteOne({ _id: id });
    },
    async markPublished(id: string, version: number): Promise<void> {
      // By `_id`. Two relays creating the first mark at once: one insert loses to the other's, which is as good.
      await published.updateOne({ _id: id }, { $max: { version } }, { upsert: true }).catch(ignoreDuplicates);
      await outbox.deleteMany({ [field]: id, version: { $lte: version } }); // index `opts.index`
    },
  };
}
