import { createMongoTombstones, ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
import type { SubscriptionState } from '../records.ts';
import type { SubscriptionStore } from '../subscription-store.ts';

interface SubscriptionDoc {
  _id: string;
  eventId: string;
  changedAt: string;
  state: SubscriptionState;
}

/**
 * `SubscriptionStore` on MongoDB 7+ or FerretDB 1.24, without transactions: one document per organization in
 * `subscriptions` (`_id` = orgId), replaced only by a conditional upsert on `changedAt`, so the check and the write
 * are one atomic step (an upsert that finds a newer document fails on the duplicate `_id` and changes nothing). The
 * event id is remembered in `subscription_events` after the write: a crash in between applies the same change again,
 * which is harmless. Purges tombstone `purged_orgs` first and `apply` looks for the tombstone again after writing.
 * Every read and write here is by `_id`.
 */
export function createMongoSubscriptionStore(db: MongoDb): SubscriptionStore {
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');
  const events = db.collection<{ _id: string }>('subscription_events');
  const purged = createMongoTombstones(db, 'purged_orgs');

  return {
    async apply(change) {
      const { eventId, orgId, ...state } = change;
      if ((await events.findOne({ _id: eventId })) !== null) return false;
      let applied = false;
      const gone = await purged.guard(
        [orgId],
        (id) => id,
        async () => {
          applied = true;
          await subscriptions
            .updateOne(
              { _id: orgId, changedAt: { $lte: change.changedAt } },
              { $set: { eventId, changedAt: change.changedAt, state } },
              { upsert: true },
            )
            .catch((err: unknown) => {
              ignoreDuplicates(err);
              applied = false;
            });
          await events.insertOne({ _id: eventId }).catch(ignoreDuplicates);
        },
        () => subscriptions.deleteOne({ _id: orgId }),
      );
      return applied && !gone.has(orgId);
    },
    async get(scope) {
      return (await subscriptions.findOne({ _id: scope.orgId }))?.state ?? null;
    },
    async purgeOrganization(scope) {
      await purged.add(scope.orgId);
      await subscriptions.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
