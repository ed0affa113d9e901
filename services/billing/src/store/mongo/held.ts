import {
  createMongoTombstones,
  duplicateIndexes,
  ignoreDuplicates,
  type MongoDb,
  updateEachOne,
} from '@formgate/store/mongo';
import type { HeldStore } from '../held-store.ts';
import type { HeldEntry, HeldLedger } from '../records.ts';

interface HeldDoc {
  _id: string;
  orgId: string;
  held: boolean;
}

/** The held submissions' ledger's collection, or the deferred emails' (the same guarantees, another collection). */
const COLLECTIONS: Record<HeldLedger, string> = { submissions: 'held_submissions', emails: 'deferred_emails' };

/**
 * `HeldStore` on MongoDB 7+ or FerretDB 1.24: one document per entry ever held or released in `held_submissions`
 * (`ledger: 'submissions'`, the default; `_id` = submission id) or `deferred_emails` (`ledger: 'emails'`; `_id` =
 * delivery id), `held` true or false. Holding inserts (a duplicate, held or released, is left alone); releasing
 * inserts `held: false`, or sets it on an entry already there. Purges tombstone `purged_orgs` first; `hold` and
 * `release` look for the tombstone again after writing and delete what they wrote for a purged organization.
 */
export function createMongoHeldStore(db: MongoDb, options: { ledger?: HeldLedger } = {}): HeldStore {
  const held = db.collection<HeldDoc>(COLLECTIONS[options.ledger ?? 'submissions']);
  const purged = createMongoTombstones(db, 'purged_orgs');
  const guarded = (entries: HeldEntry[], write: (live: HeldEntry[]) => Promise<unknown>) =>
    // Index org_held (by its prefix).
    purged.guard(
      entries,
      (e) => e.orgId,
      write,
      (orgId) => held.deleteMany({ orgId }),
    );

  return {
    async hold(entries) {
      await guarded(entries, (live) =>
        held
          .insertMany(
            live.map((e) => ({ _id: e.id, orgId: e.orgId, held: true })),
            { ordered: false },
          )
          .catch(ignoreDuplicates),
      );
    },
    // Most entries released were never held (an email sent without a deferral): those are one unordered insert;
    // only the ones already there (held, or released before) are updated, one command each by _id (ADR 56).
    async release(entries) {
      await guarded(entries, async (live) => {
        const docs = [...new Map(live.map((e) => [e.id, { _id: e.id, orgId: e.orgId, held: false }])).values()];
        const there = await held.insertMany(docs, { ordered: false }).then(() => [], duplicateIndexes);
        await updateEachOne(
          held,
          there
            .map((i) => docs[i] as HeldDoc)
            .map((d) => ({ filter: { _id: d._id }, update: { $set: { orgId: d.orgId, held: false } } })),
        );
      });
    },
    // Index org_held.
    countHeld: (scope) => held.countDocuments({ orgId: scope.orgId, held: true }),
    // No index has `held` first: a scan of the ledger, once a minute at most, when a period turns (period-watch).
    orgsWithHeld: async () => (await held.distinct('orgId', { held: true })) as string[],
    async purgeOrganization(scope) {
      await purged.add(scope.orgId);
      await held.deleteMany({ orgId: scope.orgId }); // index org_held (by its prefix)
    },
    async close() {},
  };
}
