import type {
  DeliveryChannel,
  DeliveryStatus,
  FormNotifications,
  SubmissionReceived,
  WebhookEventType,
} from '@formgate/contracts';

/** What notifications keeps of a form (from `forms.form`): enough to decide who hears about a submission. */
export interface FormView {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  notifications: FormNotifications;
  version: number;
}

/** The submission as `submission.received` carried it: kept so that retries and resends can compose again. */
export type StoredSubmission = SubmissionReceived['data'];

/** What a webhook delivery tells: kept on the delivery so that retries and resends build the same event. */
export interface WebhookEventRef {
  type: WebhookEventType;
  /** When it happened: the body's `timestamp`. */
  occurredAt: string;
  /** When the submission was received (a deleted submission's `createdAt`: its copy is gone by then). */
  receivedAt: string;
}

/** One effect: a message to one target for one purpose of one submission. */
export interface Delivery {
  /** Deterministic for a planned delivery (submission, channel, purpose, target); new for a resend. */
  id: string;
  orgId: string;
  formId: string;
  submissionId: string;
  channel: DeliveryChannel;
  /** `notification` / `autoresponse` for email; the endpoint kind for webhooks. */
  purpose: string;
  /** The address (lower case), or the webhook endpoint's URL. */
  target: string;
  targetId: string | null;
  /** `deferred`: an email held back by the organization's emails quota (`deferDelivery`), no attempt in flight. */
  status: DeliveryStatus;
  /** Attempts whose outcome is recorded. */
  attempts: number;
  /** The highest attempt number claimed so far (≥ `attempts`: one more while an attempt is in flight). */
  lastClaimed: number;
  lastResponse: { code: string; text: string } | null;
  messageId: string | null;
  /**
   * When the next attempt is due: set while `pending` or `retrying`, null once final, while `deferred`, and while its
   * first attempt is in flight in a consumer batch (the batch's lease stands for it: `claimFirstAttempts`).
   */
  nextAttemptAt: string | null;
  resendOf: string | null;
  /** Webhook deliveries only: the event sent (absent on email deliveries). */
  webhookEvent?: WebhookEventRef;
  createdAt: string;
  updatedAt: string;
}

/** What an attempt ended with. */
export interface AttemptOutcome {
  status: Exclude<DeliveryStatus, 'deferred'>;
  response: { code: string; text: string } | null;
  messageId: string | null;
  /** For `retrying`: when the next attempt is due. */
  nextAttemptAt: string | null;
  at: string;
}

/** One line of a delivery's attempt log. */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: string;
  /** Absent while the attempt is in flight (or was abandoned by a crash). */
  outcome: AttemptOutcome | null;
}

/**
 * A consumer batch's first attempts (ADR 61): one record that leases attempt 1 of every delivery it claimed until
 * `leaseUntil`, and that stays open until the batch's outcomes are published.
 */
export interface FirstAttemptBatch {
  id: string;
  startedAt: string;
  leaseUntil: string;
}

/** An open batch record, as the retry worker finds it once its lease has ended. */
export interface OpenBatch extends FirstAttemptBatch {
  deliveryIds: string[];
}

/** A first attempt's outcome, with the delivery as the batch claimed it. */
export interface FirstAttemptResult {
  delivery: Delivery;
  outcome: AttemptOutcome;
}

export type ClaimResult =
  | { claimed: true }
  /** Another instance holds attempt `attempt`; `startedAt` says since when, `finished` whether it recorded an outcome. */
  | { claimed: false; startedAt: string; finished: boolean };

/**
 * The notifications service's state. Guarantees every adapter keeps (checked by `delivery-store.contract.ts`):
 *
 * Forms view
 * - `applyForm` keeps, per form, the highest version it was given; an older or equal version changes nothing.
 * - `deleteForm` forgets the form: `getForm` answers `'deleted'` from then on (null: never seen), and an upsert of a
 *   version not above the deleted one does not bring it back.
 *
 * Submissions
 * - `saveSubmission` keeps the first copy of a submission (a redelivery changes nothing); `deleteSubmission`
 *   forgets it (its deliveries stay, as the log of what was sent). `saveSubmissions` does the same for many at once
 *   (one round trip, one transaction where the adapter has them): a copy already stored, or a second copy of the
 *   same submission in the list, changes nothing.
 *
 * Deliveries
 * - `planDeliveries` inserts each delivery whose id is new and leaves an existing one as it is; it returns the
 *   stored records, in the order given (a redelivered submission gets the deliveries planned the first time). The
 *   list may span many submissions (the consumer plans a whole batch in one call).
 * - `claimAttempt(id, n)` succeeds for exactly one caller per (delivery, n), however many instances call it at once:
 *   it is a unique insert (the effect record, written BEFORE sending). A successful claim also moves the delivery's
 *   `lastClaimed` to n and its `nextAttemptAt` to `leaseUntil`, so that another instance sees it due again only
 *   when the claimer may have crashed.
 * - `recordOutcome(id, n, outcome)` writes the attempt's outcome into its attempt record, and into the delivery
 *   unless an attempt numbered above n already recorded one there; a final status (`succeeded`, `failed`) clears
 *   `nextAttemptAt` and marks the delivery's event as pending publication.
 * - `claimFirstAttempts(batch, deliveries)` records the batch (its id, its lease, the ids given), then plans the
 *   deliveries as `planDeliveries` does, except that each one it inserts is claimed at once for attempt 1 by the
 *   batch (`lastClaimed` 1, no `nextAttemptAt`: `listDue` never lists it; the batch's lease stands for it). It answers,
 *   in the order given, each delivery as stored and whether this call claimed it (false: planned before, left as it
 *   was). The next attempt of a claimed delivery is 2 (`claimAttempt(id, 2)`), made only once the batch's lease has
 *   ended without an outcome (`listOpenBatches`).
 * - `recordFirstAttempts(batch, results)` records attempt 1's outcome of deliveries the batch claimed, as
 *   `recordOutcome(id, 1, outcome)` would, with one difference: a success's pending publication is the batch's
 *   (`listUnpublished` does not list it) until `closeBatch`. A success stays visible to every read
 *   (`getDelivery`, `listBySubmission`, `listByTarget`, `listAttempts`) and is never hidden by a later deferral.
 *   Answers the deliveries as recorded, in the order given.
 * - `listOpenBatches(before, limit)` lists batch records whose lease ended before `before` and that were not closed;
 *   `closeBatch(id)` removes one (its outcomes are published).
 * - `skipAttempt(id, n)` moves `lastClaimed` to at least n (an abandoned claim: the next claim takes n + 1).
 * - `listDue(now, limit)` returns deliveries that are `pending` or `retrying` with `nextAttemptAt ≤ now`, earliest
 *   first (index-backed); never a `deferred` one.
 * - `deferDelivery(id, lastClaimed, at)` marks a delivery that is not final, and whose `lastClaimed` is still the one
 *   given (nobody claimed an attempt since the caller read it), `deferred`: no `nextAttemptAt` (no worker picks it
 *   up), its deferral pending publication; it answers the delivery as stored (unchanged when the condition failed),
 *   null when there is none. The next successful `claimAttempt` ends the deferral (the delivery is `pending` again,
 *   leased to its claimer) and drops the deferral's pending publication; `recordOutcome` too. A deferral written late
 *   over a final delivery (a stale writer: FerretDB runs a conditional update as a read then a write) never hides
 *   its final status: a final delivery is never answered `deferred`, nor listed by `listDeferred`/`deferredOrgs`.
 * - `listDeferred(orgId, limit)` returns the organization's `deferred` deliveries, oldest (`createdAt`) first;
 *   `deferredOrgs()` the organizations that have any (both index-backed).
 * - `listByTarget(targetId, limit)` returns a webhook endpoint's most recent deliveries, newest first.
 * - `listBySubmission`, `listFailed(formId, from, to)` (final `failed`, `createdAt` in `[from, to)`), `countSince`
 *   (autoresponse rate limits) and `listUnpublished(limit, before)` (final outcomes and deferrals pending publication,
 *   recorded — `updatedAt` — before `before`) are
 *   index-backed; `markPublished` clears the pending final outcome, `markDeferralPublished` the pending deferral
 *   (each leaves the other alone: a delivery released and finished while its deferral was being published keeps
 *   its outcome pending).
 */
export interface DeliveryStore {
  applyForm(form: FormView): Promise<void>;
  deleteForm(formId: string, version: number): Promise<void>;
  getForm(formId: string): Promise<FormView | 'deleted' | null>;

  saveSubmission(submission: StoredSubmission): Promise<void>;
  saveSubmissions(submissions: StoredSubmission[]): Promise<void>;
  getSubmission(submissionId: string): Promise<StoredSubmission | null>;
  deleteSubmission(submissionId: string): Promise<void>;

  planDeliveries(deliveries: Delivery[]): Promise<Delivery[]>;
  getDelivery(id: string): Promise<Delivery | null>;
  listBySubmission(submissionId: string): Promise<Delivery[]>;
  listByTarget(targetId: string, limit: number): Promise<Delivery[]>;
  listFailed(formId: string, range: { from: string; to: string }, limit: number): Promise<Delivery[]>;
  /** Deliveries of a form and purpose created at or after `since`, optionally to one target. */
  countSince(q: { formId: string; purpose: string; target?: string; since: string }): Promise<number>;

  claimAttempt(
    deliveryId: string,
    attempt: number,
    at: { startedAt: string; leaseUntil: string },
  ): Promise<ClaimResult>;
  recordOutcome(deliveryId: string, attempt: number, outcome: AttemptOutcome): Promise<Delivery | null>;
  skipAttempt(deliveryId: string, attempt: number): Promise<void>;
  claimFirstAttempts(
    batch: FirstAttemptBatch,
    deliveries: Delivery[],
  ): Promise<{ delivery: Delivery; claimed: boolean }[]>;
  recordFirstAttempts(batch: FirstAttemptBatch, results: FirstAttemptResult[]): Promise<Delivery[]>;
  listOpenBatches(before: string, limit: number): Promise<OpenBatch[]>;
  closeBatch(batchId: string): Promise<void>;
  listAttempts(deliveryId: string): Promise<AttemptRecord[]>;
  listDue(now: string, limit: number): Promise<Delivery[]>;

  deferDelivery(deliveryId: string, lastClaimed: number, at: string): Promise<Delivery | null>;
  listDeferred(orgId: string, limit: number): Promise<Delivery[]>;
  deferredOrgs(): Promise<string[]>;

  listUnpublished(limit: number, before: string): Promise<Delivery[]>;
  markPublished(ids: string[]): Promise<void>;
  markDeferralPublished(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

/** The attempt record's key: unique per (delivery, attempt number). */
export const attemptKey = (deliveryId: string, attempt: number) => `${deliveryId}#${attempt}`;

export const isFinal = (status: DeliveryStatus) => status === 'succeeded' || status === 'failed';
