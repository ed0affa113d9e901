import { createMongoOutcomeOverlay, duplicateIndexes, equalityFlag, type MongoDb } from '@formgate/store/mongo';
import { type AttemptOutcome, attemptKey, type Delivery, isFinal } from '../records.ts';

/** Set exactly while `nextAttemptAt` is: what `listDue` finds by equality (index `due_flag`). */
export const DUE = equalityFlag('due');
/** Set exactly while `deferredAt` is: what `DeferredEmails` finds by equality (index `parked`). */
export const PARKED = equalityFlag('parked');

/**
 * `status` as recorded by attempts (never `deferred`); `deferredAt` set while the email is deferred (the delivery is
 * then answered `deferred` unless final), `deferralPending` while its `delivery.deferred` awaits publication.
 *
 * `batch` is set on a delivery whose first attempt a consumer batch claimed. Such a delivery is not written again when
 * that attempt succeeds: the success is its attempt record `<id>#1` only, and every read folds it in while the
 * delivery says `attempts: 0` (`createMongoOutcomeOverlay`, with what MongoDB does instead).
 */
export type DeliveryDoc = Omit<Delivery, 'id'> & {
  _id: string;
  batch?: { id: string; startedAt: string };
  eventPending?: true;
  deferredAt?: string;
  deferralPending?: true;
  due?: true;
  parked?: true;
};

export interface AttemptDoc {
  _id: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  outcome: AttemptOutcome | null;
}

export interface BatchDoc {
  _id: string;
  deliveryIds: string[];
  startedAt: string;
  leaseUntil: string;
}

export const NOT_FINAL = { $in: ['pending', 'retrying'] as Delivery['status'][] };

export const toDelivery = ({
  _id,
  batch: _b,
  eventPending: _e,
  deferralPending: _d,
  due: _due,
  parked: _p,
  deferredAt,
  webhookEvent,
  ...rest
}: DeliveryDoc): Delivery => ({
  id: _id,
  ...rest,
  // A deferral written late over a final delivery never hides its outcome.
  status: deferredAt !== undefined && !isFinal(rest.status) ? 'deferred' : rest.status,
  ...(webhookEvent ? { webhookEvent } : {}),
});

/** The delivery with its first attempt's outcome folded in (a batch's success, recorded in the attempt record only). */
export function withOutcome(delivery: Delivery, outcome: AttemptOutcome): Delivery {
  return {
    ...delivery,
    status: outcome.status,
    attempts: 1,
    lastClaimed: Math.max(delivery.lastClaimed, 1),
    lastResponse: outcome.response,
    messageId: outcome.messageId ?? delivery.messageId,
    nextAttemptAt: isFinal(outcome.status) ? null : outcome.nextAttemptAt,
    updatedAt: outcome.at,
  };
}

/**
 * The collections, the first-attempt successes recorded in attempt records only (`successes`: every read folds them
 * in), and the write of an outcome on its delivery. A read or write that names no index is by `_id`; the indexes are
 * created by `migrations/0001-deliveries.ts`.
 */
function core(db: MongoDb, options: DeliveriesOptions) {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const attempts = db.collection<AttemptDoc>('delivery_attempts');
  const batches = db.collection<BatchDoc>('first_attempt_batches');

  const successes = createMongoOutcomeOverlay({
    records: attempts,
    recordId: (deliveryId) => attemptKey(deliveryId, 1),
    // A batch's claim whose delivery has no outcome of its own yet.
    awaits: (doc: DeliveryDoc) => doc.batch !== undefined && doc.attempts === 0,
    view: toDelivery,
    fold: withOutcome,
    // For the lists that read the delivery's own flags (`due`, `parked`, the publication marks): a success whose
    // delivery a later writer flagged (a recovery's claim, or a deferral while the success was on its way) is
    // written on it as any outcome is, which clears them. Its publication stays the batch's.
    settle: (doc, outcome) => writeOutcome(doc._id, 1, outcome, false),
    gatherMs: options.successGatherMs,
  });

  /** An attempt's outcome on its delivery, unless a later attempt recorded one there first; the delivery after it. */
  async function writeOutcome(
    deliveryId: string,
    attempt: number,
    outcome: AttemptOutcome,
    publication = true,
  ): Promise<Delivery | null> {
    const final = isFinal(outcome.status);
    const next = final ? null : outcome.nextAttemptAt;
    const due = DUE.holds(next !== null);
    const set = {
      status: outcome.status,
      attempts: attempt,
      lastResponse: outcome.response,
      nextAttemptAt: next,
      updatedAt: outcome.at,
      ...(outcome.messageId === null ? {} : { messageId: outcome.messageId }),
      ...due.$set,
      ...(final && publication ? { eventPending: true as const } : {}),
    };
    const unset = {
      deferredAt: '',
      deferralPending: '',
      ...PARKED.holds(false).$unset,
      ...due.$unset,
      ...(final ? {} : { eventPending: '' as const }),
    } as const;
    // The delivery as written, in the same command; read only when a later attempt had recorded first.
    const doc =
      (await deliveries.findOneAndUpdate(
        { _id: deliveryId, attempts: { $lt: attempt } },
        { $set: set, $unset: unset },
        { returnDocument: 'after' },
      )) ?? (await deliveries.findOne({ _id: deliveryId }));
    return doc ? successes.read(doc) : null;
  }

  return { deliveries, attempts, batches, successes, writeOutcome };
}

type Core = ReturnType<typeof core>;

/**
 * Inserts the deliveries whose id is new (one unordered insert) and answers each as stored, with whether this call
 * inserted it. One planned before is read back by its `_id` (an `$in` is not pushed down on FerretDB).
 */
async function insertOrFind(c: Core, docs: DeliveryDoc[]) {
  const taken = new Set(await c.deliveries.insertMany(docs, { ordered: false }).then(() => [], duplicateIndexes));
  return Promise.all(
    docs.map(async (doc, i) => {
      if (!taken.has(i)) return { delivery: toDelivery(doc), inserted: true };
      const stored = await c.deliveries.findOne({ _id: doc._id });
      if (!stored) throw new Error(`delivery ${doc._id} was not stored`);
      return { delivery: await c.successes.read(stored), inserted: false };
    }),
  );
}

export interface DeliveriesOptions {
  /** How long a success waits for others to share its insert (`DELIVERY_TUNING.successGatherMs`); none by default. */
  successGatherMs?: number;
}

/** The deliveries' collections and the reads and writes every Mongo port of the pipeline shares. */
export function deliveriesCollection(db: MongoDb, options: DeliveriesOptions = {}) {
  const c = core(db, options);
  return { ...c, insertOrFind: (docs: DeliveryDoc[]) => insertOrFind(c, docs) };
}

export type DeliveriesCollection = ReturnType<typeof deliveriesCollection>;
