import type { OrgScope } from './records.ts';

/** A submission deleted (erased, expired or deleted through the API), as notifications remember it. */
export interface GoneSubmission {
  orgId: string;
  submissionId: string;
  /** When it was deleted (the deletion event's `occurredAt`). */
  goneAt: string;
}

/**
 * The tombstones of deleted submissions: the planning consumers of `ingest.submission` that were behind when a
 * submission was deleted skip its `submission.received` when it reaches them (no delivery, no copy, nothing sent).
 * Keyed by submission id (unique across organizations: ingest makes it a fresh uuid or derives it from the form's
 * id). Guarantees (checked by `gone-submissions.contract.ts`):
 *
 * - `markGone(gone)` records the submission as gone; durable when it resolves (the caller forgets the copy after).
 *   Idempotent: marking it again, even at once from several callers (a redelivered deletion), changes nothing.
 * - `listGone(submissions)` answers which of `submissions` are gone, each only for its own organization (another
 *   organization's tombstone of the id hides nothing), in one read by key whatever their number; none asked, no read.
 * - `purgeOrganization(scope)` deletes every tombstone of the organization and none of another's, index-backed;
 *   repeating it is harmless.
 *
 * They never expire: a row of about a hundred bytes per deleted submission, fewer than the delivery log's rows of
 * it, which stay as well. An expiry would have to outlive any record of the submission that can still be handled:
 * the log's retention (`SUBMISSION_LOG_RETENTION_MS`, 6 days, plus a segment's day) and then a dead letter's (as
 * long again) before a replay.
 */
export interface GoneSubmissions {
  markGone(gone: GoneSubmission): Promise<void>;
  listGone(submissions: readonly { orgId: string; submissionId: string }[]): Promise<Set<string>>;
  purgeOrganization(scope: OrgScope): Promise<void>;
}
