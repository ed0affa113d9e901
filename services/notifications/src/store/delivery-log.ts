import type {
  AttemptOutcome,
  AttemptRecord,
  ClaimResult,
  Delivery,
  FirstAttemptBatch,
  OpenBatch,
  OrgScope,
} from './records.ts';

/**
 * The deliveries, their attempts and the consumer batches that claim first attempts. Guarantees every adapter keeps
 * (checked by `delivery-log.contract.ts`):
 *
 * - `planDeliveries` inserts each delivery whose id is new and leaves an existing one as it is; it answers the stored
 *   records in the order given (a redelivered submission gets the deliveries planned the first time).
 * - `claimAttempt(id, n)` succeeds for exactly one caller per (delivery, n), however many instances call it at once:
 *   a unique insert, the effect record, written before anything is sent. It moves `lastClaimed` to n and
 *   `nextAttemptAt` to `leaseUntil` (due again only when the claimer may have crashed) and ends a deferral.
 * - `recordOutcome(id, n, outcome)` writes the outcome into attempt n's record, and into the delivery unless an
 *   attempt numbered above n recorded there first; a final status clears `nextAttemptAt` and leaves the outcome
 *   pending publication (`OutcomeOutbox`).
 * - `recordFirstAttempt(batch, { delivery, outcome })` records attempt 1 of a delivery `claimFirstAttempts` claimed
 *   (as claimed), as `recordOutcome` would, except that a success's publication is the batch's: not pending on its
 *   own, published by whoever closes the batch. Adapters gather concurrent calls into one write where they can.
 * - `claimFirstAttempts(batch, deliveries)` records the batch (its lease, the ids given), then plans each delivery
 *   as `planDeliveries` does, claiming attempt 1 of each one it inserts (`lastClaimed` 1, no `nextAttemptAt`: the
 *   batch's lease stands for it). It answers each delivery as stored and whether this call claimed it.
 * - `listOpenBatches(before, limit)` lists the batches not closed whose lease ended before `before`, each with its
 *   deliveries as stored; `closeBatch` removes one. The worker's cross-organization read, never the API's.
 * - `listDue(now, limit)`: `pending` or `retrying` deliveries with `nextAttemptAt ≤ now`, earliest first, never a
 *   final or deferred one. The retry worker's cross-organization read, never the API's.
 * - `getDelivery`, `listBySubmission` (oldest first), `listByTarget` (newest first), `listFailed` (final `failed`,
 *   `createdAt` in `[from, to)`), `listAttempts` answer only the organization's deliveries. Every read is
 *   index-backed.
 * - `countSince` is the planning consumer's read (autoresponse limits), keyed by a form of the forms view (a form is
 *   one organization's); the API never calls it.
 * - Reads never hide a final outcome: a batch's success is visible to every read, a late deferral never masks it.
 * - `redactSubmission(scope, submissionId)` (an erasure) replaces with `ERASED`, in every delivery of the submission
 *   and every attempt record of those: the target of email deliveries, and the text of every response (the
 *   delivery's `lastResponse`, each attempt outcome's `response`, a batch's success included). Everything else stays
 *   (ids, channel, purpose, status, attempts, codes, message ids, times, webhook events, which hold no content), so a
 *   webhook delivery still retries. Deliveries of `submission.erased` are left out: they were sent no content, and
 *   their responses tell why they fail. Idempotent; a submission without deliveries is no error.
 */
export interface DeliveryLog {
  planDeliveries(deliveries: Delivery[]): Promise<Delivery[]>;
  getDelivery(scope: OrgScope, id: string): Promise<Delivery | null>;
  listBySubmission(scope: OrgScope, submissionId: string): Promise<Delivery[]>;
  listByTarget(scope: OrgScope, targetId: string, limit: number): Promise<Delivery[]>;
  listFailed(scope: OrgScope, formId: string, range: { from: string; to: string }, limit: number): Promise<Delivery[]>;
  /**
   * Internal (the planning consumer's): deliveries of a form and purpose created at or after `since`, optionally to
   * one target (autoresponse limits).
   */
  countSince(q: { formId: string; purpose: string; target?: string; since: string }): Promise<number>;
  listAttempts(scope: OrgScope, deliveryId: string): Promise<AttemptRecord[]>;
  /** Internal: the retry worker's read across organizations. */
  listDue(now: string, limit: number): Promise<Delivery[]>;

  claimAttempt(
    deliveryId: string,
    attempt: number,
    at: { startedAt: string; leaseUntil: string },
  ): Promise<ClaimResult>;
  recordOutcome(deliveryId: string, attempt: number, outcome: AttemptOutcome): Promise<Delivery | null>;
  recordFirstAttempt(
    batch: FirstAttemptBatch,
    result: { delivery: Delivery; outcome: AttemptOutcome },
  ): Promise<Delivery>;

  claimFirstAttempts(
    batch: FirstAttemptBatch,
    deliveries: Delivery[],
  ): Promise<{ delivery: Delivery; claimed: boolean }[]>;
  /** Internal: the worker's read of abandoned consumer batches, across organizations. */
  listOpenBatches(before: string, limit: number): Promise<OpenBatch[]>;
  closeBatch(batchId: string): Promise<void>;
  redactSubmission(scope: OrgScope, submissionId: string): Promise<void>;
}
