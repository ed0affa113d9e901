import { existingIds, type MongoDb, updateEachOne } from '@formgate/store/mongo';
import type { OutcomeOutbox } from '../outcome-outbox.ts';
import { deliveriesCollection } from './deliveries-schema.ts';

/** `OutcomeOutbox` on MongoDB: the `eventPending` and `deferralPending` marks of the deliveries. */
export function createMongoOutcomeOutbox(db: MongoDb): OutcomeOutbox {
  const c = deliveriesCollection(db);
  // One `updateOne` per `_id` (`updateEachOne`): an `$in` is not pushed down on FerretDB 1.24.
  const unsetEach = (ids: string[], field: 'eventPending' | 'deferralPending') =>
    updateEachOne(
      c.deliveries,
      ids.map((_id) => ({ filter: { _id }, update: { $unset: { [field]: '' } } })),
    );
  return {
    async listUnpublished(limit, before) {
      // Two equality reads (indexes `unpublished`, `deferral_unpublished`), not one `$or`, which FerretDB would run
      // as a scan; `updatedAt` is filtered over the marked deliveries only.
      const outcomes = await c.deliveries
        .find({ eventPending: true, updatedAt: { $lt: before } })
        .limit(limit)
        .toArray();
      const seen = new Set(outcomes.map((d) => d._id));
      const deferrals =
        outcomes.length < limit
          ? await c.deliveries
              .find({ deferralPending: true, updatedAt: { $lt: before } })
              .limit(limit - outcomes.length)
              .toArray()
          : [];
      return c.successes.settled([...outcomes, ...deferrals.filter((d) => !seen.has(d._id))]);
    },
    async markPublished(ids) {
      await unsetEach(ids, 'eventPending');
    },
    async markDeferralPublished(ids) {
      await unsetEach(ids, 'deferralPending');
    },
    async countPending({ orgId }, submissionId) {
      // Index `submission`, then each batch named by `_id` (a delivery keeps the batch that claimed it for good).
      const docs = await c.deliveries
        .find({ submissionId, orgId }, { projection: { eventPending: 1, deferralPending: 1, batch: 1 } })
        .toArray();
      const batchIds = [...new Set(docs.flatMap((d) => (d.batch ? [d.batch.id] : [])))];
      const open = await existingIds(c.batches, batchIds);
      return docs.filter((d) => d.eventPending || d.deferralPending || (d.batch && open.has(d.batch.id))).length;
    },
  };
}
