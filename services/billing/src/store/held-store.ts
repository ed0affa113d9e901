import type { HeldEntry } from './records.ts';

/**
 * The held ledger: which submissions of an organization wait for a higher plan or the next period. Guarantees every
 * adapter keeps:
 * - `hold` is idempotent by submission id; `release` too, and an id released once is never held again (a late
 *   redelivery of its `submission.received` arrives after the release, or the release arrives first).
 * - `countHeld` is the number of ids held and not released, exact after a previous call failed half-way.
 * - `orgsWithHeld` lists exactly the organizations whose `countHeld` is above 0.
 * - `purgeOrganization` forgets the organization's entries, and only its; a purged organization stays purged (the
 *   tombstone the usage ledger shares): `hold` ignores its entries afterwards, even when both run at once.
 */
export interface HeldStore {
  hold(entries: HeldEntry[]): Promise<void>;
  /** Released (counted now) or deleted while held: no longer waiting. */
  release(entries: HeldEntry[]): Promise<void>;
  countHeld(scope: { orgId: string }): Promise<number>;
  orgsWithHeld(): Promise<string[]>;
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}
