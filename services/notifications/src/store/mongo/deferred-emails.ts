import type { MongoDb } from '@formgate/store/mongo';
import type { DeferredEmails } from '../deferred-emails.ts';
import { DUE, deliveriesCollection, NOT_FINAL, PARKED } from './deliveries-schema.ts';

/** `DeferredEmails` on MongoDB: `deferredAt` on the delivery, found through its `parked` equality flag. */
export function createMongoDeferredEmails(db: MongoDb): DeferredEmails {
  const c = deliveriesCollection(db);
  return {
    async defer(deliveryId, lastClaimed, at) {
      // The update and the read by `_id`; the claim and the status are checked on the document.
      await c.deliveries.updateOne(
        { _id: deliveryId, lastClaimed, deferredAt: { $exists: false }, status: NOT_FINAL },
        {
          $set: {
            deferredAt: at,
            updatedAt: at,
            nextAttemptAt: null,
            deferralPending: true,
            ...PARKED.holds(true).$set,
          },
          $unset: DUE.holds(false).$unset,
        },
      );
      const doc = await c.deliveries.findOne({ _id: deliveryId });
      return doc ? ((await c.successes.settled([doc]))[0] ?? null) : null;
    },
    async listDeferred(orgId, limit) {
      // Index `parked` (`parked`, `orgId`).
      const docs = await c.deliveries
        .find({ ...PARKED.filter, orgId, status: NOT_FINAL })
        .sort({ orgId: 1, deferredAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return (await c.successes.settled(docs)).filter((d) => d.status === 'deferred');
    },
    async deferredOrgs() {
      // Index `parked`.
      return (await c.deliveries.distinct('orgId', { ...PARKED.filter, status: NOT_FINAL })) as string[];
    },
  };
}
