import { existingIds, insertOnce, type MongoDb } from './mongo.ts';

/**
 * Tombstones of purged things (an organization's id) in `collection`, for stores that must ignore a purged thing's
 * writes forever, even one that runs while the purge does.
 *
 * FerretDB 1.24 has no transactions (ADR 55), so a write cannot check the tombstone and write in one step: `guard`
 * looks before writing, writes what is not tombstoned, looks again and has the caller take back what it wrote under
 * a tombstone written meanwhile; the purge writes its tombstone before it deletes. On MongoDB 7 with a replica set
 * the check and the write would be one transaction, and the look after the write would go.
 */
export function createMongoTombstones(db: MongoDb, collection: string) {
  const stones = db.collection<{ _id: string }>(collection);
  /** Which of `ids` are tombstoned: one read by `_id` each (`existingIds`). */
  const among = (ids: Iterable<string>) => existingIds(stones, ids);
  return {
    among,
    /** Whether `id` is tombstoned (a read by `_id`). */
    has: async (id: string) => (await among([id])).has(id),
    /** Tombstones `id`; idempotent. Write it before deleting what it covers. */
    add: async (id: string) => void (await insertOnce(stones.insertOne({ _id: id }))),
    /**
     * Writes `items` whose key is not tombstoned (`write`), then calls `takeBack` for each key tombstoned meanwhile.
     * Returns every key found tombstoned, before or after the write (the caller reports nothing for those).
     */
    async guard<T>(
      items: T[],
      keyOf: (item: T) => string,
      write: (live: T[]) => Promise<unknown>,
      takeBack: (key: string) => Promise<unknown>,
    ): Promise<Set<string>> {
      const before = await among(items.map(keyOf));
      const live = items.filter((item) => !before.has(keyOf(item)));
      if (live.length === 0) return before;
      await write(live);
      const since = await among(live.map(keyOf));
      for (const key of since) await takeBack(key);
      return new Set([...before, ...since]);
    },
  };
}

export type MongoTombstones = ReturnType<typeof createMongoTombstones>;
