import type { SubscriptionChange, SubscriptionState } from './records.ts';

/**
 * Each organization's subscription state. Guarantees every adapter keeps:
 * - `apply` is idempotent by `eventId`: an event applied before changes nothing, whenever it comes back.
 * - It keeps the newest by `changedAt`: a change older than the state held is ignored (a late delivery never rolls a
 *   plan back); at an equal `changedAt` the change applied last wins.
 * - `purgeOrganization` forgets the organization's state, and only its; a purged organization stays purged (the
 *   tombstone the usage ledger shares): `apply` ignores its changes afterwards, even when both run at once.
 */
export interface SubscriptionStore {
  /** Returns whether the change became the organization's state. */
  apply(change: SubscriptionChange): Promise<boolean>;
  /** The organization's state, `null` when no change was ever applied. */
  get(scope: { orgId: string }): Promise<SubscriptionState | null>;
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}
