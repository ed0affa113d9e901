import type { Delivery } from './records.ts';

/**
 * Emails held back by their organization's emails quota. Guarantees (checked by `deferred-emails.contract.ts`):
 *
 * - `defer(id, lastClaimed, at)` marks a delivery that is not final, and whose `lastClaimed` is still the one given
 *   (nobody claimed since the caller read it), `deferred`: no `nextAttemptAt`, its deferral pending publication. It
 *   answers the delivery as stored (unchanged when the condition failed), null when there is none. The next claim
 *   or outcome of the delivery ends the deferral and drops its pending publication.
 * - A deferral written late over a final delivery (a stale writer) never hides the final status: a final delivery is
 *   never answered `deferred`, nor listed.
 * - `listDeferred(orgId, limit)`: the organization's deferred deliveries, oldest deferral first; `deferredOrgs()`:
 *   the organizations that have any. Both index-backed.
 */
export interface DeferredEmails {
  defer(deliveryId: string, lastClaimed: number, at: string): Promise<Delivery | null>;
  listDeferred(orgId: string, limit: number): Promise<Delivery[]>;
  deferredOrgs(): Promise<string[]>;
}
