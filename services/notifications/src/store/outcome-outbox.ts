import type { Delivery, OrgScope } from './records.ts';

/**
 * The outcome events not published yet. Guarantees (checked by `delivery-log.contract.ts`, `countPending` by
 * `submission-settlements.contract.ts`):
 *
 * - `listUnpublished(limit, before)` lists final outcomes and deferrals pending publication, recorded (`updatedAt`)
 *   before `before`, index-backed. A batch's success is not listed (closing the batch is its publication).
 * - `markPublished` clears a pending final outcome, `markDeferralPublished` a pending deferral; each leaves the other
 *   alone (a delivery released and finished while its deferral was being published keeps its outcome pending).
 * - `countPending(scope, submissionId)` counts the submission's deliveries whose event is not published yet: an
 *   outcome or a deferral pending publication, or any delivery a consumer batch claimed while that batch is open (its
 *   successes are published by closing it). Index-backed: the submission's deliveries, then each batch by key.
 */
export interface OutcomeOutbox {
  listUnpublished(limit: number, before: string): Promise<Delivery[]>;
  markPublished(ids: string[]): Promise<void>;
  markDeferralPublished(ids: string[]): Promise<void>;
  countPending(scope: OrgScope, submissionId: string): Promise<number>;
}
