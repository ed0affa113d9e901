import type { OrgScope } from '@formgate/contracts';
import type { ReleaseLedger, StoredSubmission } from './records.ts';

/**
 * Finds held submissions (issue 13) and keeps the release ledger. Guarantees every adapter keeps:
 * - `listOldestHeld` answers the organization's live held submissions, of all its forms, oldest first by
 *   (`createdAt`, `id`); never another organization's.
 * - `countHeld` is the number of them (the sum of the forms' `heldCount`).
 * - The ledger is one record per organization, replaced whole; it is written only by the consumer of
 *   `billing.quota` (keyed by organization: one writer per organization); `FormRepository.purgeOrganization`
 *   deletes it.
 * Releasing one is `SubmissionChanges.changeSubmission(…, 'release', …)`.
 */
export interface HeldSubmissions {
  listOldestHeld(scope: OrgScope, limit: number): Promise<StoredSubmission[]>;
  countHeld(scope: OrgScope): Promise<number>;
  getReleaseLedger(scope: OrgScope): Promise<ReleaseLedger | null>;
  saveReleaseLedger(ledger: ReleaseLedger): Promise<void>;
}
