import type { Delivery } from './records.ts';

/**
 * The outcome events not published yet. Guarantees (checked by `outcome-outbox.contract.ts`):
 *
 * - `listUnpublished(limit, before)` lists final outcomes and deferrals pending publication, recorded (`updatedAt`)
 *   before `before`, index-backed. A batch's success is not listed (closing the batch is its publication).
 * - `markPublished` clears a pending final outcome, `markDeferralPublished` a pending deferral; each leaves the other
 *   alone (a delivery released and finished while its deferral was being published keeps its outcome pending).
 */
export interface OutcomeOutbox {
  listUnpublished(limit: number, before: string): Promise<Delivery[]>;
  markPublished(ids: string[]): Promise<void>;
  markDeferralPublished(ids: string[]): Promise<void>;
}
