import type { OrgScope } from '@formgate/contracts';
import type { StoredSubmission } from './submission-record.ts';

/**
 * What the release of an organization's held submissions has promised in a billing period (issue 13): `level` is
 * the submissions used that the releases planned so far fill the period up to (billing's count plus what was
 * released and perhaps not counted by billing yet), `owed` how many releases were planned, `done` how many of
 * them were made. A new period starts a new ledger.
 */
export interface ReleaseLedger {
  orgId: string;
  /** `YYYY-MM`, billing's period. */
  period: string;
  level: number;
  owed: number;
  done: number;
}

/**
 * The part of the `FormsStore` port that finds held submissions and keeps the release ledger. Guarantees every
 * adapter keeps:
 * - `listOldestHeld` answers the organization's live held submissions, of all its forms, oldest first by
 *   (`createdAt`, `id`); never another organization's.
 * - `countHeld` is the number of them (the sum of the forms' `heldCount`).
 * - The ledger is one record per organization, replaced whole; it is written only by the consumer of
 *   `billing.quota` (keyed by organization: one writer per organization); `purgeOrganization` deletes it.
 * Releasing one is `changeSubmission(…, 'release', …)` (`submission-changes.ts`).
 */
export interface HeldSubmissionMethods {
  listOldestHeld(scope: OrgScope, limit: number): Promise<StoredSubmission[]>;
  countHeld(scope: OrgScope): Promise<number>;
  getReleaseLedger(scope: OrgScope): Promise<ReleaseLedger | null>;
  saveReleaseLedger(ledger: ReleaseLedger): Promise<void>;
}
