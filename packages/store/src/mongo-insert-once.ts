import type { mongo } from 'mongoose';
import { ignoreDuplicates } from './mongo.ts';

/**
 * Inserts of documents that never change once written (a copy kept by several consumers), skipping the ids this
 * process inserted (or found inserted) lately, at most `remembered` of them. FerretDB 1.24 answers an unordered
 * insert that holds one duplicate by inserting every document again alone, each duplicate a failed statement it
 * logs, so two consumers saving the same copies paid one insert per document. MongoDB answers the duplicates of one
 * unordered insert in that one command: there this only saves the round trip of a batch already stored.
 */
export function createInsertOnce<T extends { _id: string }>(collection: mongo.Collection<T>, remembered: number) {
  const known = new Map<string, true>();
  const remember = (id: string) => {
    known.delete(id);
    known.set(id, true);
    if (known.size > remembered) known.delete(known.keys().next().value as string);
  };
  return {
    /** Inserts the documents not known to be stored (the first of each id given twice); duplicates are ignored. */
    async insert(docs: T[]): Promise<void> {
      const fresh = new Map<string, T>();
      for (const doc of docs) if (!known.has(doc._id) && !fresh.has(doc._id)) fresh.set(doc._id, doc);
      if (fresh.size === 0) return;
      const all = [...fresh.values()] as mongo.OptionalUnlessRequiredId<T>[];
      await collection.insertMany(all, { ordered: false }).catch(ignoreDuplicates);
      for (const id of fresh.keys()) remember(id);
    },
    /** The document was deleted: the next insert of its id is made. */
    forget: (id: string) => void known.delete(id),
  };
}
