import type { mongo } from 'mongoose';
import { ignoreDuplicates } from './mongo.ts';
import { createMongoWriteGroup } from './mongo-write-group.ts';

/** A side record: the outcome of one document, kept in a collection of its own. */
export interface OutcomeRecord<O> {
  _id: string;
  outcome: O | null;
}

/**
 * Outcomes recorded beside their documents instead of on them, and folded into every read. A document written
 * marked (`awaits` holds for it) may have its outcome in its side record only (`recordId` of its `_id`): `record`
 * inserts that record, gathered with the records of concurrent callers (and, with `gatherMs`, of those that follow
 * within it) into one unordered insert (`createMongoWriteGroup`), and leaves the document as it is; `read` answers
 * the document with the outcome folded in. Once an outcome is written on the document itself, `awaits` no longer holds and the record is not read.
 *
 * Queries on the document's own fields (a flag a later writer set while the outcome was on its way) keep finding a
 * document whose outcome is only in its record: `settled` writes that outcome on the document (`settle`), which
 * answers it as written, so those queries stop finding it.
 *
 * FerretDB 1.24 costs about 2 ms of CPU per command, runs an update per document as a command of its own
 * (`updateEachOne`), and one insert of many records as one statement: writing many outcomes on their documents cost
 * a command each, recording them beside their documents one command for all. On MongoDB one `bulkWrite` of updates
 * would write the outcomes on the documents themselves in one command, and neither the side records nor the fold on
 * reads would be needed.
 */
export function createMongoOutcomeOverlay<D extends { _id: string }, O, R extends OutcomeRecord<O>, V>(opts: {
  /** The side records, one per document at most. */
  records: mongo.Collection<R>;
  /** The `_id` of a document's side record. */
  recordId: (id: string) => string;
  /** Whether the document's outcome may be in its side record only (marked, and no outcome written on it since). */
  awaits: (doc: D) => boolean;
  /** The document as reads answer it. */
  view: (doc: D) => V;
  /** A view with an outcome folded in. */
  fold: (view: V, outcome: O) => V;
  /** Writes the outcome on the document; answers it as written, or null when the document is gone. */
  settle: (doc: D, outcome: O) => Promise<V | null>;
  /** How long the first record of an idle moment waits for others to share its insert (`createMongoWriteGroup`). */
  gatherMs?: number;
}) {
  const { records } = opts;
  const group = createMongoWriteGroup(
    async (items: R[]) => {
      // A record there already (an outcome recorded twice) stays.
      await records
        .insertMany(items as mongo.OptionalUnlessRequiredId<R>[], { ordered: false })
        .catch(ignoreDuplicates);
      return items.map(() => undefined);
    },
    { gatherMs: opts.gatherMs },
  );
  /** The outcome in the document's side record, if any (one `_id` read). */
  const outcomeOf = async (id: string): Promise<O | null> =>
    ((await records.findOne({ _id: opts.recordId(id) } as mongo.Filter<R>)) as R | null)?.outcome ?? null;
  /** The outcome a read folds into `doc`: its record's, while it awaits one. */
  const pending = (doc: D) => (opts.awaits(doc) ? outcomeOf(doc._id) : Promise.resolve(null));

  const read = async (doc: D): Promise<V> => {
    const outcome = await pending(doc);
    return outcome === null ? opts.view(doc) : opts.fold(opts.view(doc), outcome);
  };
  return {
    /** Records an outcome beside its document only; resolves once its insert is done. */
    record: (rec: R): Promise<void> => group.submit(rec),
    outcomeOf,
    /** The document with its recorded outcome folded in. */
    read,
    readAll: (docs: D[]) => Promise.all(docs.map(read)),
    /** The documents as `read` answers them, each recorded outcome written on its document first (`settle`). */
    settled: (docs: D[]) =>
      Promise.all(
        docs.map(async (doc) => {
          const outcome = await pending(doc);
          if (outcome === null) return opts.view(doc);
          return (await opts.settle(doc, outcome)) ?? opts.fold(opts.view(doc), outcome);
        }),
      ),
  };
}
