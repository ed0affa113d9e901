import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import type { SubscriptionState, SubscriptionStore } from './subscription-store.ts';

interface SubscriptionDoc {
  _id: string;
  eventId: string;
  changedAt: string;
  state: SubscriptionState;
}

const ignoreDuplicate = (err: unknown) => {
  if (!isDuplicateKeyError(err)) throw err;
};

/**
 * `SubscriptionStore` on MongoDB 7+ or FerretDB 1.24, without transactions: one document per organization in
 * `subscriptions` (`_id` = orgId), replaced only by a conditional upsert on `changedAt`, so the check and the write
 * are one atomic step (an upsert that finds a newer document fails on the duplicate `_id` and changes nothing). The
 * event id is remembered in `subscription_events` after the write: a crash in between applies the same change again,
 * which is harmless. Purges tombstone `purged_orgs` first and `apply` looks for the tombstone again after writing.
 */
export async function createMongoSubscriptionStore(conn: MongoConnection): Promise<SubscriptionStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoSubscriptionStore: the connection is not open');
  const subscriptions = db.collection<SubscriptionDoc>('subscriptions');
  const events = db.collection<{ _id: string }>('subscription_events');
  const purged = db.collection<{ _id: string }>('purged_orgs');
  const isPurged = async (orgId: string) => (await purged.findOne({ _id: orgId })) !== null;

  return {
    async apply(change) {
      const { eventId, orgId, ...state } = change;
      if (await isPurged(orgId)) return false;
      if ((await events.findOne({ _id: eventId })) !== null) return false;
      let applied = true;
      await subscriptions
        .updateOne(
          { _id: orgId, changedAt: { $lte: change.changedAt } },
          { $set: { eventId, changedAt: change.changedAt, state } },
          { upsert: true },
        )
        .catch((err: unknown) => {
          ignoreDuplicate(err);
          applied = false;
        });
      await events.insertOne({ _id: eventId }).catch(ignoreDuplicate);
      if (await isPurged(orgId)) {
        await subscriptions.deleteOne({ _id: orgId });
        return false;
      }
      return applied;
    },
    async get(scope) {
      return (await subscriptions.findOne({ _id: scope.orgId }))?.state ?? null;
    },
    async purgeOrganization(scope) {
      await purged.insertOne({ _id: scope.orgId }).catch(ignoreDuplicate);
      await subscriptions.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
