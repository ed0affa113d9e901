/** One billable submission. */
export interface UsageEntry {
  submissionId: string;
  orgId: string;
  /** Calendar month `YYYY-MM` (UTC) the submission was received in. */
  period: string;
}

export interface UsageCount {
  orgId: string;
  period: string;
  used: number;
}

/**
 * The usage meter. Guarantees every adapter keeps:
 * - `recordUsage` is idempotent by submission id: an entry seen before is not counted again.
 * - The counts it returns, and `getUsage`, equal the number of distinct submissions recorded for that
 *   organization and period, even after a previous call failed half-way.
 * - `purgeOrganization` forgets every entry and count of that organization, and only of it; repeating it is harmless.
 */
export interface UsageStore {
  /** Records entries; returns the current count of every (orgId, period) the entries touched. */
  recordUsage(entries: UsageEntry[]): Promise<UsageCount[]>;
  getUsage(scope: { orgId: string }, period: string): Promise<number>;
  /** Deletes the organization's whole ledger (every period). */
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}
