import type { DailyCount, FormCounts, OrgScope, SubmissionAction, SubmissionChangeResult } from '@formgate/contracts';
import type { SubmissionRecord } from './submission-record.ts';

/**
 * What a change does: the API's actions, and `release` (a held submission becomes visible, made by the release of
 * held submissions, `use-cases/release-held.ts`, never through the API).
 */
export type SubmissionChangeAction = SubmissionAction | 'release';

/**
 * A change made to a stored submission through the API, waiting in the outbox until its event reached
 * `forms.submission`. Its `id` is the event's id.
 */
export interface SubmissionChange {
  id: string;
  formId: string;
  orgId: string;
  submissionId: string;
  action: SubmissionChangeAction;
  /** Whether the submission counted as spam just before the change. */
  wasSpam: boolean;
  /** The submission's `createdAt` (when ingest received it). */
  receivedAt: string;
  occurredAt: string;
  /** The blobs of a deleted submission, deleted by the relay before the event is published. */
  blobKeys: string[];
  /**
   * A release's submission as released (what `submission.released` carries), without its position; and, on the
   * first `not-spam` mark of a submission ingest judged spam (issue 14, ADR 42), the submission as released from
   * spam (`spam.isSpam: false`, ingest's reasons kept), which `submission.spam-marked` then carries.
   */
  submission?: SubmissionRecord;
}

/** What counting a change needs: its event's data. */
export type CountedChange = Pick<SubmissionChange, 'id' | 'formId' | 'orgId' | 'action' | 'wasSpam' | 'receivedAt'>;

/**
 * The counter increments of a change: a deletion leaves the total (and spam if it was), a mark moves spam, a
 * release moves a held submission into the total (and spam if it is) — on its day — out of the held count.
 */
export function changeIncrements(c: CountedChange): { total: number; spam: number; held: number } {
  if (c.action === 'release') return { total: 1, spam: c.wasSpam ? 1 : 0, held: -1 };
  if (c.action === 'delete') return { total: -1, spam: c.wasSpam ? -1 : 0, held: 0 };
  return { total: 0, spam: c.action === 'spam' ? 1 : -1, held: 0 };
}

/**
 * The part of the `FormsStore` port that changes stored submissions and keeps the counters (ADR 0020).
 * Guarantees every adapter keeps:
 * - `changeSubmission` applies the change, adjusts the counters and leaves it in the outbox as one durable step
 *   (no change without its event, no event without its change), or does nothing (`unchanged`, `not_found`).
 *   A deleted submission is kept only as a tombstone without fields or files: reads no longer find it, and a
 *   redelivered `submission.received` for it is refused as a duplicate, so it never comes back and is never
 *   counted twice.
 * - The counters stay exact: once every change is counted (`countSubmissionChanges`), `submissionCount` = live
 *   submissions of the form, `spamCount` = those of them counted as spam (ingest's verdict unless marked since),
 *   the daily counts likewise per UTC day of `createdAt`, whatever order submissions are stored, changed and
 *   redelivered in.
 * - Concurrent changes of one submission apply one at a time: each sees the state the previous one left.
 * - Marking not spam a submission whose ingest verdict was spam releases it, once: the first such change carries
 *   the submission (`submission`, with its reserved fields, which the stored one then forgets); later marks of it
 *   (spam, then not spam again) carry nothing. A submission ingest judged clean never carries it (it was notified
 *   and billed at receipt).
 * - Held submissions (issue 13) are in no counter but `heldCount` until released. The API's actions do not see
 *   them (`not_found`); `release` changes only a held one (`unchanged` otherwise), and its change carries the
 *   submission as released (`submission`), so of two releases racing for one submission exactly one is `changed`.
 * - `deleteForm` removes the form at once (reads answer `null`) and leaves a `FormDeletion` in the outbox;
 *   `purgeDeletedForm` then removes what the form had stored, idempotently, also what was stored for it after.
 */
export interface SubmissionChangeMethods {
  changeSubmission(
    scope: OrgScope,
    formId: string,
    submissionId: string,
    action: SubmissionChangeAction,
    change: { id: string; occurredAt: string },
  ): Promise<SubmissionChangeResult>;
  /** Changes applied but not yet confirmed published to `forms.submission`, oldest first (the outbox). */
  listUnpublishedSubmissionChanges(limit: number): Promise<SubmissionChange[]>;
  /** Records that the change's event reached the log: the outbox forgets it. */
  markSubmissionChangePublished(changeId: string): Promise<void>;
  /**
   * Counts published changes (the `forms.submission` events) into the counters, where an adapter does not count
   * them in `changeSubmission` already (SQLite does; there this does nothing). Idempotent by change id; must not
   * run concurrently for one form (the consumer of a partition keyed by form id is its one writer).
   */
  countSubmissionChanges(changes: CountedChange[]): Promise<void>;
  /** The counters of each of the organization's forms named (a form of another organization is left out). */
  getFormCounts(scope: OrgScope, formIds: string[]): Promise<Map<string, StoredCounts>>;
  /** The daily counts of the UTC days [`fromDay`, `toDay`] (`YYYY-MM-DD`), oldest first, days without any left out. */
  getDailyCounts(scope: OrgScope, formId: string, fromDay: string, toDay: string): Promise<StoredDailyCount[]>;
  /** Deletes the form (only the organization's); its deletion goes to the outbox. Returns whether it existed. */
  deleteForm(scope: OrgScope, formId: string): Promise<boolean>;
  /** The blob keys of every file a form's stored submissions still reference (for a form being purged). */
  listFormBlobKeys(formId: string): Promise<string[]>;
  /**
   * Completes a form's deletion: removes the form if it is still there, and every submission, counter and pending
   * change it has; idempotent. Only for a form whose deletion is in the outbox, or that is gone already.
   */
  purgeDeletedForm(formId: string): Promise<void>;
}

/** What the submissions' counters hold; blocked requests are counted apart (`blocked-counts.ts`). */
export type StoredCounts = Omit<FormCounts, 'blockedCount'>;
export type StoredDailyCount = Omit<DailyCount, 'blocked'>;

export const NO_COUNTS: FormCounts = {
  submissionCount: 0,
  spamCount: 0,
  lastSubmissionAt: null,
  heldCount: 0,
  blockedCount: 0,
};

/** The UTC day of an ISO-8601 timestamp. */
export const dayOf = (iso: string) => iso.slice(0, 10);

/** What `action` does to a live submission whose state is (`spam`, `held`). */
export function changes(action: SubmissionChangeAction, spam: boolean, held = false): SubmissionChangeResult | true {
  if (action === 'release') return held ? true : 'unchanged';
  if (held) return 'not_found';
  if (action === 'delete') return true;
  return spam !== (action === 'spam') ? true : 'unchanged';
}
