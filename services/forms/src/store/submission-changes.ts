import type { FormCounts, OrgScope, SubmissionChangeResult } from '@formgate/contracts';
import type { CountedChange, SubmissionChange, SubmissionChangeAction, SubmissionRecord } from './records.ts';

/**
 * Changes of stored submissions (marks, deletions, releases), their outbox and their counting (ADR 0020).
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
 *   and billed at receipt), nor one whose content was dropped (a no-store form's, `dropContent`): nothing is left
 *   to deliver.
 * - Held submissions (issue 13) are in no counter but `heldCount` until released. The API's actions do not see
 *   them (`not_found`); `release` changes only a held one (`unchanged` otherwise), and its change carries the
 *   submission as released (`submission`), so of two releases racing for one submission exactly one is `changed`.
 * - `erase` (issue 31) deletes like `delete`, held submissions too (a held one leaves `heldCount` only), leaves no
 *   trace of what the submitter sent (fields, files, reserved fields, origin, referer, search terms, address keys)
 *   and its change carries the erasure's id (`erasure`) and whether it was held (`wasHeld`).
 */
export interface SubmissionChanges {
  changeSubmission(
    scope: OrgScope,
    formId: string,
    submissionId: string,
    action: SubmissionChangeAction,
    change: ChangeMeta,
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
}

/** A change's event id and time, and for an `erase` the erasure's id or that the retention made it. */
export interface ChangeMeta {
  id: string;
  occurredAt: string;
  erasure?: string;
  /** A deletion by the retention in force (`erase` without an erasure): its event says so (`expired`). */
  expired?: true;
}

/**
 * The counter increments of a change: a deletion leaves the total (and spam if it was), a mark moves spam, a
 * release moves a held submission into the total (and spam if it is) — on its day — out of the held count.
 */
export function changeIncrements(c: CountedChange): { total: number; spam: number; held: number } {
  if (c.action === 'release') return { total: 1, spam: c.wasSpam ? 1 : 0, held: -1 };
  if (c.action === 'erase' && c.wasHeld) return { total: 0, spam: 0, held: -1 };
  if (c.action === 'delete' || c.action === 'erase') return { total: -1, spam: c.wasSpam ? -1 : 0, held: 0 };
  return { total: 0, spam: c.action === 'spam' ? 1 : -1, held: 0 };
}

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
  if (action === 'erase') return true;
  if (action === 'release') return held ? true : 'unchanged';
  if (held) return 'not_found';
  if (action === 'delete') return true;
  return spam !== (action === 'spam') ? true : 'unchanged';
}

/**
 * The submission a change carries (`SubmissionChange.submission`): the stored one as released, with `spam` as
 * given (a release keeps ingest's verdict, a release from spam clears it), its reserved fields and source kept.
 */
export function releasedSubmission(
  stored: Omit<SubmissionRecord, 'spam' | 'held'>,
  spam: SubmissionRecord['spam'],
): SubmissionRecord {
  const { id, formId, orgId, createdAt, fields, files, meta, origin, referer } = stored;
  const submission: SubmissionRecord = { id, formId, orgId, createdAt, fields, files, spam, held: false };
  if (meta !== undefined) submission.meta = meta;
  if (origin !== undefined) submission.origin = origin;
  if (referer !== undefined) submission.referer = referer;
  return submission;
}

/**
 * What a deleted or erased submission keeps of its spam verdict: the layers and rules, not their details, which may
 * quote what was submitted (a matched word, a domain).
 */
export const tombstoneVerdict = (spam: SubmissionRecord['spam']): SubmissionRecord['spam'] => ({
  isSpam: spam.isSpam,
  reasons: spam.reasons.map((r) => ({ ...r, detail: '' })),
});

/** What an `erase` change records beside the rest: the erasure's id or the retention's mark, and whether it was held. */
export function erasedBy(
  meta: Pick<ChangeMeta, 'erasure' | 'expired'>,
  wasHeld: boolean,
): Pick<SubmissionChange, 'erasure' | 'expired' | 'wasHeld'> {
  return {
    ...(meta.erasure !== undefined ? { erasure: meta.erasure } : {}),
    ...(meta.expired ? { expired: true as const } : {}),
    wasHeld,
  };
}
