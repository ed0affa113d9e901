import { existingIds, isDuplicateKeyError, type MongoConnection, updateEachOne } from '@formgate/store/mongo';
import type { HeldEntry, HeldStore } from './held-store.ts';

interface HeldDoc {
  _id: string;
  orgId: string;
  held: boolean;
}

const ignoreDuplicates = (err: unknown) => {
  if (!isDuplicateKeyError(err)) throw err;
};

/** The held submissions' ledger's collection, or the deferred emails' (the same guarantees, another collection). */
const COLLECTIONS = { submissions: 'held_submissions', emails: 'deferred_emails' } as const;

/**
 * `HeldStore` on MongoDB 7+ or FerretDB 1.24: one document per entry ever held or released in `held_submissions`
 * (`ledger: 'submissions'`, the default; `_id` = submission id) or `deferred_emails` (`ledger: 'emails'`; `_id` =
 * delivery id), `held` true or false. Holding inserts (a duplicate, held or released,
 * is left alone); releasing upserts `held: false`. Purges tombstone `purged_orgs` first; `hold` and `release` look
 * for the tombstone again after writing and delete what they wrote for a purged organization.
 */
export async function createMongoHeldStore(
  conn: MongoConnection,
  options: { ledger?: keyof typeof COLLECTIONS } = {},
): Promise<HeldStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoHeldStore: the connection is not open');
  const held = db.collection<HeldDoc>(COLLECTIONS[options.ledger ?? 'submissions']);
  const purged = db.collection<{ _id: string }>('purged_orgs');
  await held.createIndex({ orgId: 1, held: 1 }, { name: 'org_held' });
  const purgedAmong = (orgIds: Iterable<string>) => existingIds(purged, orgIds);

  const write = async (entries: HeldEntry[], run: (live: HeldEntry[]) => Promise<unknown>) => {
    const gone = await purgedAmong(entries.map((e) => e.orgId));
    const live = entries.filter((e) => !gone.has(e.orgId));
    if (live.length === 0) return;
    await run(live);
    const goneSince = await purgedAmong(live.map((e) => e.orgId));
    for (const orgId of goneSince) await held.deleteMany({ orgId });
  };

  return {
    hold: (entries) =>
      write(entries, (live) =>
        held
          .insertMany(
            live.map((e) => ({ _id: e.id, orgId: e.orgId, held: true })),
            { ordered: false },
          )
          .catch(ignoreDuplicates),
      ),
    release: (entries) =>
      write(entries, (live) =>
        updateEachOne(
          held,
          live.map((e) => ({ filter: { _id: e.id }, update: { $set: { orgId: e.orgId, held: false } }, upsert: true })),
        ),
      ),
    countHeld: (scope) => held.countDocuments({ orgId: scope.orgId, held: true }),
    orgsWithHeld: async () => (await held.distinct('orgId', { held: true })) as string[],
    async purgeOrganization(scope) {
      await purged.insertOne({ _id: scope.orgId }).catch(ignoreDuplicates);
      await held.deleteMany({ orgId: scope.orgId });
    },
    async close() {},
  };
}
