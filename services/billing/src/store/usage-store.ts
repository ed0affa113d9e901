/**
 * What a store meters: submissions (one entry per submission id) or notification emails sent (one entry per
 * delivery id). Each meter is a separate ledger; purging an organization purges it from every meter.
 */
export type Meter = 'submissions' | 'emails';

/** One billable thing: a submission, or an email delivery. */
export interface UsageEntry {
  /** The submission's id, or the email delivery's id: counted once whatever the redeliveries. */
  id: string;
  orgId: string;
  /** Calendar month `YYYY-MM` (UTC) it happened in. */
  period: string;
}

export interface UsageCount {
  orgId: string;
  period: string;
  used: number;
}

/**
 * The usage meter. Guarantees every adapter keeps:
 * - `recordUsage` is idempotent by entry id: an entry seen before is not counted again.
 * - The counts it returns, and `getUsage`, equal the number of distinct entries recorded for that
 *   organization and period, even after a previous call failed half-way.
 * - `purgeOrganization` forgets every entry and count of that organization, and only of it; repeating it is harmless.
 * - A purged organization stays purged (a tombstone): `recordUsage` ignores its entries and returns no count for
 *   it, so a submission acknowledged just before the deletion reached ingest, and metered after the purge, leaves
 *   nothing behind. That holds even when the purge and `recordUsage` run at once: once both have returned, the
 *   organization has no entry and no count.
 */
export interface UsageStore {
  /** Records entries; returns the current count of every (orgId, period) of a live organization they touched. */
  recordUsage(entries: UsageEntry[]): Promise<UsageCount[]>;
  getUsage(scope: { orgId: string }, period: string): Promise<number>;
  /** Deletes the organization's whole ledger (every period) and keeps it from being metered again. */
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}
