import { ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
import type { DeliveryLog } from '../delivery-log.ts';
import {
  type AttemptOutcome,
  type AttemptRecord,
  attemptKey,
  type Delivery,
  ERASED,
  type FirstAttemptBatch,
} from '../records.ts';
import {
  type DeliveriesCollection,
  type DeliveriesOptions,
  type DeliveryDoc,
  DUE,
  deliveriesCollection,
  toDelivery,
  withOutcome,
} from './deliveries-schema.ts';

type Reads = Pick<
  DeliveryLog,
  | 'planDeliveries'
  | 'getDelivery'
  | 'listBySubmission'
  | 'listByTarget'
  | 'listFailed'
  | 'countSince'
  | 'listAttempts'
  | 'listDue'
>;

/** Planning and every read: by `_id`, or by an equality on an indexed field (each query names its index). */
function reads(c: DeliveriesCollection): Reads {
  const { deliveries, attempts } = c;
  return {
    async planDeliveries(planned) {
      if (planned.length === 0) return [];
      const docs: DeliveryDoc[] = planned.map(({ id, ...rest }) => ({
        _id: id,
        ...rest,
        ...DUE.holds(rest.nextAttemptAt !== null).$set,
      }));
      return (await c.insertOrFind(docs)).map((r) => r.delivery);
    },
    async getDelivery({ orgId }, id) {
      // Index `_id`; the organization is checked on the document read.
      const doc = await deliveries.findOne({ _id: id });
      return doc && doc.orgId === orgId ? c.successes.read(doc) : null;
    },
    async listBySubmission({ orgId }, submissionId) {
      // Index `submission`; the organization is filtered by the server over the submission's few deliveries.
      const docs = await deliveries.find({ submissionId, orgId }).sort({ submissionId: 1, createdAt: 1 }).toArray();
      return (await c.successes.readAll(docs)).sort(
        (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
      );
    },
    async listByTarget({ orgId }, targetId, limit) {
      // Index `target`.
      const docs = await deliveries
        .find({ targetId, orgId })
        .sort({ targetId: -1, createdAt: -1 })
        .limit(limit)
        .toArray();
      return c.successes.readAll(docs);
    },
    async listFailed({ orgId }, formId, range, limit) {
      // Index `form_status`.
      const docs = await deliveries
        .find({ formId, status: 'failed', orgId, createdAt: { $gte: range.from, $lt: range.to } })
        .sort({ formId: 1, status: 1, createdAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toDelivery);
    },
    countSince(q) {
      // Index `form_target`.
      return deliveries.countDocuments({
        formId: q.formId,
        purpose: q.purpose,
        ...(q.target === undefined ? {} : { target: q.target }),
        createdAt: { $gte: q.since },
      });
    },
    async listAttempts({ orgId }, deliveryId) {
      // Index `_id`, then `delivery`.
      if (!(await deliveries.findOne({ _id: deliveryId, orgId }, { projection: { _id: 1 } }))) return [];
      const docs = await attempts.find({ deliveryId }).sort({ deliveryId: 1, attempt: 1 }).toArray();
      return docs.map(({ _id: _k, ...rest }): AttemptRecord => rest);
    },
    async listDue(now, limit) {
      // Index `due_flag` (the equality), then `nextAttemptAt` filtered over the due deliveries only.
      const docs = await deliveries
        .find({ ...DUE.filter, nextAttemptAt: { $lte: now } })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray();
      return (await c.successes.settled(docs)).filter((d) => d.status === 'pending' || d.status === 'retrying');
    },
  };
}

/** A single attempt's claim and outcome. */
function attemptWrites(c: DeliveriesCollection): Pick<DeliveryLog, 'claimAttempt' | 'recordOutcome'> {
  const { deliveries, attempts } = c;
  return {
    async claimAttempt(deliveryId, attempt, at) {
      const _id = attemptKey(deliveryId, attempt);
      if (attempt === 1) {
        // A delivery a batch planned was claimed for attempt 1 by its insert (set once, at creation): held. By `_id`.
        const doc = await deliveries.findOne({ _id: deliveryId });
        if (doc?.batch !== undefined) {
          return { claimed: false, startedAt: doc.batch.startedAt, outcome: await c.successes.outcomeOf(deliveryId) };
        }
      }
      try {
        await attempts.insertOne({ _id, deliveryId, attempt, startedAt: at.startedAt, outcome: null });
      } catch (err) {
        ignoreDuplicates(err);
        const held = await attempts.findOne({ _id }); // by `_id`
        if (!held) throw new Error(`attempt ${_id} is neither new nor stored`);
        return { claimed: false, startedAt: held.startedAt, outcome: held.outcome };
      }
      // By `_id`; the claim is checked on the document.
      await deliveries.updateOne(
        { _id: deliveryId, lastClaimed: { $lt: attempt } },
        {
          $set: {
            lastClaimed: attempt,
            nextAttemptAt: at.leaseUntil,
            updatedAt: at.startedAt,
            ...DUE.holds(true).$set,
          },
          $unset: { deferredAt: '', parked: '', deferralPending: '' },
        },
      );
      return { claimed: true };
    },
    async recordOutcome(deliveryId, attempt, outcome) {
      // By `_id`, as `writeOutcome`'s.
      await attempts.updateOne({ _id: attemptKey(deliveryId, attempt) }, { $set: { outcome } });
      return c.writeOutcome(deliveryId, attempt, outcome);
    },
  };
}

/** A consumer batch's claims and outcomes, and its record. */
function batchWrites(
  c: DeliveriesCollection,
): Omit<DeliveryLog, keyof Reads | 'claimAttempt' | 'recordOutcome' | 'redactSubmission'> {
  const { deliveries, attempts, batches } = c;

  /** Attempt 1 of a delivery `batch` claimed: a success is its attempt record only, a failure is written as any. */
  async function recordFirst(batch: FirstAttemptBatch, delivery: Delivery, outcome: AttemptOutcome) {
    const deliveryId = delivery.id;
    const record = { _id: attemptKey(deliveryId, 1), deliveryId, attempt: 1, startedAt: batch.startedAt, outcome };
    if (outcome.status === 'succeeded') {
      // Gathered with other successes into one insert while another is under way.
      await c.successes.record(record);
      return withOutcome(delivery, outcome);
    }
    await attempts.insertOne(record).catch(ignoreDuplicates);
    return (await c.writeOutcome(deliveryId, 1, outcome)) ?? withOutcome(delivery, outcome);
  }

  return {
    recordFirstAttempt: (batch, { delivery, outcome }) => recordFirst(batch, delivery, outcome),
    async claimFirstAttempts(batch, planned) {
      if (planned.length === 0) return [];
      // The batch record first: from here on a crash leaves something the retry worker finds (after the lease).
      await batches.insertOne({
        _id: batch.id,
        deliveryIds: planned.map((d) => d.id),
        startedAt: batch.startedAt,
        leaseUntil: batch.leaseUntil,
      });
      const docs: DeliveryDoc[] = planned.map(({ id, ...rest }) => ({
        _id: id,
        ...rest,
        lastClaimed: 1,
        nextAttemptAt: null,
        updatedAt: batch.startedAt,
        batch: { id: batch.id, startedAt: batch.startedAt },
      }));
      // The unique insert of each delivery is the claim of its attempt 1 (as an attempt record's is for later ones).
      return (await c.insertOrFind(docs)).map(({ delivery, inserted }) => ({ delivery, claimed: inserted }));
    },
    async listOpenBatches(before, limit) {
      // No index: open batches are the few in flight (and any a crash left), so a scan of them is cheap.
      const docs = await batches
        .find({ leaseUntil: { $lt: before } })
        .limit(limit)
        .toArray();
      return Promise.all(
        docs.map(async ({ _id, deliveryIds, startedAt, leaseUntil }) => {
          // Index `_id`, one read each (an `$in` is not pushed down on FerretDB).
          const found = await Promise.all(deliveryIds.map((id) => deliveries.findOne({ _id: id })));
          const stored = await c.successes.readAll(found.filter((d): d is DeliveryDoc => d !== null));
          return { batch: { id: _id, startedAt, leaseUntil }, deliveries: stored as Delivery[] };
        }),
      );
    },
    async closeBatch(batchId) {
      await batches.deleteOne({ _id: batchId }); // by `_id`
    },
  };
}

/**
 * An erasure's redaction: the submission's deliveries by index `submission` (equalities), then the attempt records of
 * each by index `delivery`, one command a delivery (an `$in` is not pushed down on FerretDB; on MongoDB one
 * `updateMany` with `deliveryId: {$in}` would do). A response is written over only where there is one.
 */
async function redactSubmission(c: DeliveriesCollection, orgId: string, submissionId: string) {
  const { deliveries, attempts } = c;
  // The submission's deliveries but those sending `submission.erased` (a `$ne` is filtered over the submission's few).
  const redacted = { submissionId, orgId, 'webhookEvent.type': { $ne: 'submission.erased' as const } };
  const ids = await deliveries.find(redacted, { projection: { _id: 1 } }).toArray();
  await Promise.all(
    ids.map(({ _id }) =>
      attempts.updateMany(
        { deliveryId: _id, 'outcome.response.code': { $exists: true } },
        { $set: { 'outcome.response.text': ERASED } },
      ),
    ),
  );
  await deliveries.updateMany({ submissionId, orgId, channel: 'email' }, { $set: { target: ERASED } });
  await deliveries.updateMany(
    { ...redacted, 'lastResponse.code': { $exists: true } },
    { $set: { 'lastResponse.text': ERASED } },
  );
}

/**
 * `DeliveryLog` on MongoDB 7+ or FerretDB 1.24. FerretDB has no transactions and runs an update as a read then a
 * write, so who may make attempt n of a delivery is decided by inserting the attempt record `<deliveryId>#<n>` (a
 * unique insert is atomic), and every later write to the delivery is made by that claim's holder only. Conditional
 * updates (`attempts`, `lastClaimed`) only guard against stale writers (an attempt that outlived its lease).
 */
export function createMongoDeliveryLog(db: MongoDb, options: DeliveriesOptions = {}): DeliveryLog {
  const c = deliveriesCollection(db, options);
  return {
    ...reads(c),
    ...attemptWrites(c),
    ...batchWrites(c),
    redactSubmission: ({ orgId }, submissionId) => redactSubmission(c, orgId, submissionId),
  };
}
