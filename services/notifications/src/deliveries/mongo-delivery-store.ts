import { duplicateIndexes, ignoreDuplicates, type MongoConnection, updateEachOne } from '@formgate/store/mongo';
import { LRUCache } from 'lru-cache';
import {
  type AttemptOutcome,
  type AttemptRecord,
  attemptKey,
  type Delivery,
  type DeliveryStore,
  type FormView,
  isFinal,
  type OpenBatch,
  type StoredSubmission,
} from './delivery-store.ts';

interface FormDoc {
  _id: string;
  version: number;
  deleted: boolean;
  form: FormView | null;
}
interface SubmissionDoc {
  _id: string;
  submission: StoredSubmission;
}
/**
 * `status` as recorded by attempts (never `deferred`); `deferredAt` set while the email is deferred (the delivery is
 * then answered `deferred` unless final), `deferralPending` while its `delivery.deferred` awaits publication.
 *
 * `due` is set exactly while `nextAttemptAt` is, and `parked` exactly while `deferredAt` is: the retry worker and
 * the releaser find those deliveries by these equalities, which FerretDB 1.24 answers from an index, where a range
 * or a `$type` reads every delivery ever made (ADR 57). Deliveries written without them (before they existed, or by
 * an older instance during an upgrade) are found by a sweep every `SWEEP_MS`, until `CLEAN_SWEEPS` in a row found none.
 *
 * `batch` is set on a delivery whose first attempt a consumer batch claimed (`claimFirstAttempts`, ADR 61). Such a
 * delivery is not written again when that attempt succeeds: the success is its attempt record `<id>#1`, inserted with
 * the batch's other successes in one command, and every read overlays it (`overlay`) while the delivery says
 * `attempts: 0`. A failure is written on the delivery as any attempt's is.
 */
type DeliveryDoc = Omit<Delivery, 'id'> & {
  _id: string;
  batch?: { id: string; startedAt: string };
  eventPending?: true;
  deferredAt?: string;
  deferralPending?: true;
  due?: true;
  parked?: true;
};

/** Submission ids remembered as having their copy stored (`kept` in `createMongoDeliveryStore`). */
const KEPT_COPIES = 20_000;

/** How often `listDue` and `deferredOrgs` also look for deliveries written without `due` or `parked`. */
export const SWEEP_MS = 5 * 60_000;
/** Sweeps in a row that found no unflagged delivery, after which a process stops looking (ADR 57). */
export const CLEAN_SWEEPS = 3;

const NOT_FINAL = { $in: ['pending', 'retrying'] as Delivery['status'][] };
interface AttemptDoc {
  _id: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  outcome: AttemptOutcome | null;
}

interface BatchDoc {
  _id: string;
  deliveryIds: string[];
  startedAt: string;
  leaseUntil: string;
}

const toDelivery = ({
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

/** A delivery whose first attempt a batch claimed and whose own document has no outcome yet: read its record. */
const awaitsOverlay = (doc: DeliveryDoc) => doc.batch !== undefined && doc.attempts === 0;

/** The delivery with its first attempt's outcome, recorded in the attempt record only (a batch's success). */
function withOutcome(delivery: Delivery, outcome: AttemptOutcome | null | undefined): Delivery {
  if (!outcome) return delivery;
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
 * Whether a sweep for deliveries written without `due` or `parked` is due: at the first call, then every `SWEEP_MS`,
 * until `CLEAN_SWEEPS` sweeps in a row found none (`found`). The organizations a sweep found with unflagged deferred
 * deliveries are listed the old way until none is left.
 */
function createSweep() {
  const state = {
    due: { last: Number.NEGATIVE_INFINITY, clean: 0 },
    parked: { last: Number.NEGATIVE_INFINITY, clean: 0 },
  };
  const now = (which: keyof typeof state): boolean => {
    const s = state[which];
    const t = Date.now();
    if (s.clean >= CLEAN_SWEEPS || (t - s.last < SWEEP_MS && t >= s.last)) return false;
    s.last = t;
    return true;
  };
  return {
    unflaggedOrgs: new Set<string>(),
    due: () => now('due'),
    parked: () => now('parked'),
    found(which: keyof typeof state, unflagged: boolean) {
      state[which].clean = unflagged ? 0 : state[which].clean + 1;
    },
  };
}

/**
 * `DeliveryStore` on MongoDB 7+ or FerretDB 1.24. FerretDB has no transactions and runs an update as a read then a
 * write, so nothing here relies on a conditional update being atomic under concurrency: who may make attempt n of a
 * delivery is decided by inserting the attempt record `_id = <deliveryId>#<n>` (a unique insert is atomic), and
 * every later write to the delivery is made by that claim's holder only. Conditional updates (`version`,
 * `attempts`) only guard against stale writers (an older form snapshot, an attempt that outlived its lease).
 */
export async function createMongoDeliveryStore(conn: MongoConnection): Promise<DeliveryStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoDeliveryStore: the connection is not open');
  const forms = db.collection<FormDoc>('forms_view');
  const submissions = db.collection<SubmissionDoc>('submissions');
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const attempts = db.collection<AttemptDoc>('delivery_attempts');
  const batches = db.collection<BatchDoc>('first_attempt_batches');
  await Promise.all([
    deliveries.createIndex({ submissionId: 1, createdAt: 1 }, { name: 'submission' }),
    deliveries.createIndex({ nextAttemptAt: 1 }, { name: 'due' }),
    deliveries.createIndex({ due: 1 }, { name: 'due_flag', sparse: true }),
    deliveries.createIndex({ parked: 1, orgId: 1 }, { name: 'parked', sparse: true }),
    deliveries.createIndex({ formId: 1, status: 1, createdAt: 1 }, { name: 'form_status' }),
    deliveries.createIndex({ formId: 1, purpose: 1, target: 1, createdAt: 1 }, { name: 'form_target' }),
    deliveries.createIndex({ eventPending: 1 }, { name: 'unpublished' }),
    deliveries.createIndex({ targetId: 1, createdAt: 1 }, { name: 'target' }),
    deliveries.createIndex({ orgId: 1, deferredAt: 1 }, { name: 'deferred', sparse: true }),
    deliveries.createIndex({ deferralPending: 1 }, { name: 'deferral_unpublished', sparse: true }),
    attempts.createIndex({ deliveryId: 1, attempt: 1 }, { name: 'delivery' }),
  ]);

  const sweep = createSweep();
  /**
   * Submissions whose copy this process stored (or found stored) lately. The emails' and the webhooks' groups both
   * save the copy of each submission, and FerretDB 1.24 answers an insert with one duplicate by inserting every
   * document again alone (`msg_insert.go`), each duplicate a failed statement it logs: the second group's batch cost
   * one insert per submission (2,026 in one distributed P12 run). A copy is never changed, so skipping one known to
   * be there changes nothing (ADR 56, "Applied since").
   */
  const kept = new LRUCache<string, true>({ max: KEPT_COPIES });
  /** Attempt 1's recorded outcome (one `_id` read). */
  const firstOutcome = async (deliveryId: string) =>
    (await attempts.findOne({ _id: attemptKey(deliveryId, 1) }))?.outcome ?? null;
  /** The delivery as every read answers it: with a batch's first-attempt success overlaid. */
  const overlay = async (doc: DeliveryDoc): Promise<Delivery> =>
    awaitsOverlay(doc) ? withOutcome(toDelivery(doc), await firstOutcome(doc._id)) : toDelivery(doc);
  const overlayAll = (docs: DeliveryDoc[]) => Promise.all(docs.map(overlay));
  /**
   * The deliveries as `overlay` answers them, for the lists whose queries read the document's own flags (`due`,
   * `parked`, the publication marks): a batch's success whose delivery a later writer flagged (a recovery's claim
   * or deferral while the success was on its way) is written on the delivery as any outcome is, which clears the
   * flags, so the lists stop finding it.
   */
  const settled = (docs: DeliveryDoc[]) =>
    Promise.all(
      docs.map(async (doc) => {
        const outcome = awaitsOverlay(doc) ? await firstOutcome(doc._id) : null;
        if (!outcome) return toDelivery(doc);
        // Its publication stays the batch's (whoever finishes the batch publishes it).
        return (await writeOutcome(doc._id, 1, outcome, false)) ?? withOutcome(toDelivery(doc), outcome);
      }),
    );
  /** An attempt's outcome on its delivery, unless a later attempt recorded one there first; the delivery after it. */
  const writeOutcome = async (deliveryId: string, attempt: number, outcome: AttemptOutcome, publication = true) => {
    const final = isFinal(outcome.status);
    const next = final ? null : outcome.nextAttemptAt;
    const set = {
      status: outcome.status,
      attempts: attempt,
      lastResponse: outcome.response,
      nextAttemptAt: next,
      updatedAt: outcome.at,
      ...(outcome.messageId === null ? {} : { messageId: outcome.messageId }),
      ...(next === null ? {} : { due: true as const }),
    };
    const unset = {
      deferredAt: '',
      parked: '',
      deferralPending: '',
      ...(next === null ? { due: '' as const } : {}),
    } as const;
    // The delivery as written, in the same command; read only when a later attempt had recorded first.
    const doc =
      (await deliveries.findOneAndUpdate(
        { _id: deliveryId, attempts: { $lt: attempt } },
        final
          ? { $set: publication ? { ...set, eventPending: true as const } : set, $unset: unset }
          : { $set: set, $unset: { eventPending: '', ...unset } },
        { returnDocument: 'after' },
      )) ?? (await deliveries.findOne({ _id: deliveryId }));
    return doc ? overlay(doc) : null;
  };

  /**
   * Inserts the deliveries whose id is new (one unordered insert) and answers each as stored, with whether this call
   * inserted it. Only one planned before (a redelivered batch) is read back, by its `_id`: on FerretDB 1.24 an `$in`
   * is not pushed down and reads every delivery, while an `_id` equality is an index read.
   */
  const insertOrFind = async (docs: DeliveryDoc[]) => {
    const taken = new Set(await deliveries.insertMany(docs, { ordered: false }).then(() => [], duplicateIndexes));
    return Promise.all(
      docs.map(async (doc, i) => {
        if (!taken.has(i)) return { delivery: toDelivery(doc), inserted: true };
        const stored = await deliveries.findOne({ _id: doc._id });
        if (!stored) throw new Error(`delivery ${doc._id} was not stored`);
        return { delivery: await overlay(stored), inserted: false };
      }),
    );
  };

  // One `updateOne` per `_id`: an `_id` equality is an index read on FerretDB 1.24, an `$in` a scan of every
  // delivery (and not one `bulkWrite`: see `updateEachOne`).
  const unsetEach = (ids: string[], field: 'eventPending' | 'deferralPending') =>
    updateEachOne(
      deliveries,
      ids.map((_id) => ({ filter: { _id }, update: { $unset: { [field]: '' } } })),
    );

  return {
    async applyForm(form) {
      // Matches only an older snapshot; when a newer (or equal) one is there the upsert's insert is a duplicate.
      await forms
        .updateOne(
          { _id: form.id, version: { $lt: form.version } },
          { $set: { version: form.version, deleted: false, form } },
          { upsert: true },
        )
        .catch(ignoreDuplicates);
    },
    async deleteForm(formId, version) {
      await forms
        .updateOne(
          { _id: formId, version: { $lte: version } },
          { $set: { version, deleted: true, form: null } },
          { upsert: true },
        )
        .catch(ignoreDuplicates);
    },
    async getForm(formId) {
      const doc = await forms.findOne({ _id: formId });
      if (!doc) return null;
      return doc.deleted || !doc.form ? 'deleted' : doc.form;
    },

    async saveSubmission(submission) {
      if (kept.has(submission.submissionId)) return;
      await submissions.insertOne({ _id: submission.submissionId, submission }).catch(ignoreDuplicates);
      kept.set(submission.submissionId, true);
    },
    async saveSubmissions(list) {
      const first = new Map<string, StoredSubmission>();
      for (const submission of list)
        if (!first.has(submission.submissionId) && !kept.has(submission.submissionId))
          first.set(submission.submissionId, submission);
      if (first.size === 0) return;
      // Unordered: every new one is inserted even when some are there already (their duplicate key is ignored).
      await submissions
        .insertMany(
          [...first.values()].map((submission) => ({ _id: submission.submissionId, submission })),
          { ordered: false },
        )
        .catch(ignoreDuplicates);
      for (const id of first.keys()) kept.set(id, true);
    },
    async getSubmission(submissionId) {
      return (await submissions.findOne({ _id: submissionId }))?.submission ?? null;
    },
    async deleteSubmission(submissionId) {
      await submissions.deleteOne({ _id: submissionId });
      kept.delete(submissionId);
    },

    async planDeliveries(planned) {
      if (planned.length === 0) return [];
      const docs: DeliveryDoc[] = planned.map(({ id, ...rest }) => ({
        _id: id,
        ...rest,
        ...(rest.nextAttemptAt === null ? {} : { due: true as const }),
      }));
      return (await insertOrFind(docs)).map((r) => r.delivery);
    },
    async getDelivery(id) {
      const doc = await deliveries.findOne({ _id: id });
      return doc ? overlay(doc) : null;
    },
    async listBySubmission(submissionId) {
      const docs = await deliveries.find({ submissionId }).sort({ submissionId: 1, createdAt: 1 }).toArray();
      return (await overlayAll(docs)).sort(
        (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
      );
    },
    async listByTarget(targetId, limit) {
      const docs = await deliveries.find({ targetId }).sort({ targetId: -1, createdAt: -1 }).limit(limit).toArray();
      return overlayAll(docs);
    },
    async listFailed(formId, range, limit) {
      const docs = await deliveries
        .find({ formId, status: 'failed', createdAt: { $gte: range.from, $lt: range.to } })
        .sort({ formId: 1, status: 1, createdAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toDelivery);
    },
    countSince(q) {
      return deliveries.countDocuments({
        formId: q.formId,
        purpose: q.purpose,
        ...(q.target === undefined ? {} : { target: q.target }),
        createdAt: { $gte: q.since },
      });
    },

    async claimAttempt(deliveryId, attempt, at) {
      const _id = attemptKey(deliveryId, attempt);
      if (attempt === 1) {
        // A delivery a batch planned was claimed for attempt 1 by its insert (set once, at creation): held.
        const doc = await deliveries.findOne({ _id: deliveryId });
        if (doc?.batch !== undefined) {
          const delivery = await overlay(doc);
          return { claimed: false, startedAt: doc.batch.startedAt, finished: delivery.attempts > 0 };
        }
      }
      try {
        await attempts.insertOne({ _id, deliveryId, attempt, startedAt: at.startedAt, outcome: null });
      } catch (err) {
        ignoreDuplicates(err);
        const held = await attempts.findOne({ _id });
        if (!held) throw new Error(`attempt ${_id} is neither new nor stored`);
        return { claimed: false, startedAt: held.startedAt, finished: held.outcome !== null };
      }
      await deliveries.updateOne(
        { _id: deliveryId, lastClaimed: { $lt: attempt } },
        {
          $set: { lastClaimed: attempt, nextAttemptAt: at.leaseUntil, due: true as const, updatedAt: at.startedAt },
          $unset: { deferredAt: '', parked: '', deferralPending: '' },
        },
      );
      return { claimed: true };
    },
    async recordOutcome(deliveryId, attempt, outcome) {
      await attempts.updateOne({ _id: attemptKey(deliveryId, attempt) }, { $set: { outcome } });
      return writeOutcome(deliveryId, attempt, outcome);
    },
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
      return (await insertOrFind(docs)).map(({ delivery, inserted }) => ({ delivery, claimed: inserted }));
    },
    async recordFirstAttempts(batch, results) {
      if (results.length === 0) return [];
      // Every attempt record in one insert (a success is nothing more); then each failure on its delivery too, for
      // the retry worker's and `listFailed`'s equality reads. A record there already (a batch recorded twice) stays.
      await attempts
        .insertMany(
          results.map(({ delivery, outcome }) => ({
            _id: attemptKey(delivery.id, 1),
            deliveryId: delivery.id,
            attempt: 1,
            startedAt: batch.startedAt,
            outcome,
          })),
          { ordered: false },
        )
        .catch(ignoreDuplicates);
      return Promise.all(
        results.map(async ({ delivery, outcome }) =>
          outcome.status === 'succeeded'
            ? withOutcome(delivery, outcome)
            : ((await writeOutcome(delivery.id, 1, outcome)) ?? withOutcome(delivery, outcome)),
        ),
      );
    },
    async listOpenBatches(before, limit) {
      // Open batches are the few in flight (and any a crash left): the collection stays small, a scan is cheap.
      const docs = await batches
        .find({ leaseUntil: { $lt: before } })
        .limit(limit)
        .toArray();
      return docs.map(({ _id, ...rest }): OpenBatch => ({ id: _id, ...rest }));
    },
    async closeBatch(batchId) {
      await batches.deleteOne({ _id: batchId });
    },
    async skipAttempt(deliveryId, attempt) {
      await deliveries.updateOne(
        { _id: deliveryId, lastClaimed: { $lt: attempt } },
        { $set: { lastClaimed: attempt } },
      );
    },
    async listAttempts(deliveryId) {
      const docs = await attempts.find({ deliveryId }).sort({ deliveryId: 1, attempt: 1 }).toArray();
      return docs.map(({ _id: _k, ...rest }): AttemptRecord => rest);
    },
    async listDue(now, limit) {
      const docs = await deliveries
        .find({ due: true, nextAttemptAt: { $lte: now } })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray();
      const notFinal = async (found: DeliveryDoc[]) => (await settled(found)).filter((d) => !isFinal(d.status));
      if (!sweep.due()) return notFinal(docs);
      // Every scheduled delivery without the flag, due or not: a sweep that finds none counts towards the last one.
      const unflagged = await deliveries
        .find({ nextAttemptAt: { $type: 'string' }, due: { $exists: false } })
        .toArray();
      sweep.found('due', unflagged.length > 0);
      const dueNow = unflagged.filter((d) => (d.nextAttemptAt as string) <= now);
      return notFinal(
        [...docs, ...dueNow]
          .sort((a, b) => (a.nextAttemptAt as string).localeCompare(b.nextAttemptAt as string))
          .slice(0, limit),
      );
    },

    async deferDelivery(deliveryId, lastClaimed, at) {
      await deliveries.updateOne(
        { _id: deliveryId, lastClaimed, deferredAt: { $exists: false }, status: NOT_FINAL },
        {
          $set: {
            deferredAt: at,
            parked: true as const,
            updatedAt: at,
            nextAttemptAt: null,
            deferralPending: true as const,
          },
          $unset: { due: '' },
        },
      );
      const doc = await deliveries.findOne({ _id: deliveryId });
      return doc ? ((await settled([doc]))[0] ?? null) : null;
    },
    async listDeferred(orgId, limit) {
      const unflagged = sweep.unflaggedOrgs.has(orgId);
      const docs = await deliveries
        .find(
          unflagged
            ? { orgId, deferredAt: { $type: 'string' }, status: NOT_FINAL }
            : { parked: true, orgId, status: NOT_FINAL },
        )
        .sort({ orgId: 1, deferredAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      if (unflagged && docs.length < limit) sweep.unflaggedOrgs.delete(orgId);
      return (await settled(docs)).filter((d) => d.status === 'deferred');
    },
    async deferredOrgs() {
      const flagged = (await deliveries.distinct('orgId', { parked: true, status: NOT_FINAL })) as string[];
      if (!sweep.parked()) return flagged;
      const unflagged = (await deliveries.distinct('orgId', {
        deferredAt: { $type: 'string' },
        parked: { $exists: false },
        status: NOT_FINAL,
      })) as string[];
      sweep.found('parked', unflagged.length > 0);
      for (const orgId of unflagged) sweep.unflaggedOrgs.add(orgId);
      return [...new Set([...flagged, ...unflagged])];
    },

    async listUnpublished(limit, before) {
      // Two equality reads, not one `$or`: FerretDB pushes equality down to its indexes but scans every delivery
      // for an `$or`, and the retry worker asks this on every pass. FerretDB filters `updatedAt` itself, over the
      // marked deliveries only (those whose recorder has not cleared its mark yet).
      const outcomes = await deliveries
        .find({ eventPending: true, updatedAt: { $lt: before } })
        .limit(limit)
        .toArray();
      const seen = new Set(outcomes.map((d) => d._id));
      const deferrals =
        outcomes.length < limit
          ? await deliveries
              .find({ deferralPending: true, updatedAt: { $lt: before } })
              .limit(limit - outcomes.length)
              .toArray()
          : [];
      return settled([...outcomes, ...deferrals.filter((d) => !seen.has(d._id))]);
    },
    async markPublished(ids) {
      await unsetEach(ids, 'eventPending');
    },
    async markDeferralPublished(ids) {
      await unsetEach(ids, 'deferralPending');
    },
    async close() {},
  };
}
