import {
  duplicateIndexes,
  existingIds,
  isDuplicateKeyError,
  type MongoConnection,
  updateEachOne,
} from '@formgate/store/mongo';
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
 * delivery id), `held` true or false. Holding inserts (a duplicate, held or released, is left alone); releasing
 * inserts `held: false`, or sets it on an entry already there. Purges tombstone `purged_orgs` first; `hold` and
 * `release` look for the tombstone again after writing and delete what they wrote for a purged organization.
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
    // Most entries released were never held (an email sent without a deferral): those are one unordered insert;
    // only the ones already there (held, or released before) are updated, one command each (ADR 56).
    release: (entries) =>
      write(entries, async (live) => {
        const docs = [...new Map(live.map((e) => [e.id, { _id: e.id, orgId: e.orgId, held: false }])).values()];
        const there = await held.insertMany(docs, { ordered: false }).then(() => [], duplicateIndexes);
        await updateEachOne(
          held,
          there
            .map((i) => docs[i] as HeldDoc)
            .map((d) => ({ filter: { _id: d._id }, update: { $set: { orgId: d.orgId, held: false } } })),
        );
      }),
    countHeld: (scope) => held.countDocuments({ orgId: scope.orgId, held: true }),
    orgsWithHeld: async () => (await held.distinct('orgId', { held: true })) as string[],
    async purgeOrganization(scope) {
      await purged.insertOne({ _id: scope.orgId }).catch(ignoreDuplicates);
      await held.deleteMany({ orgId: scope.orgId });
    },
    async close() {},
  };
}
