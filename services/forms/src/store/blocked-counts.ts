import type { BlockedCount, OrgScope } from '@formgate/contracts';
import type { BlockedDay } from './records.ts';

/**
 * Counts requests a spam layer refused (issue 14): per form and UTC day, from the `blocked` counts of ingest's
 * abuse reports (`ingest.abuse`). Nothing of a blocked request is stored but its count. Guarantees every adapter
 * keeps:
 * - `recordBlocked` is idempotent by report id: a redelivered report (even after a call that failed half-way)
 *   counts nothing more. Counts of one form and day from several reports (several ingest instances) add up.
 *   It must not run concurrently with itself (the one consumer of the single-partition `ingest.abuse` calls it).
 * - Reads never return another organization's counts (a count is the organization's that ingest reported it for).
 * - `FormRepository.purgeDeletedForm` and `purgeOrganization` forget the counts of what they purge.
 */
export interface BlockedCounts {
  /** Adds the report's counts to their forms' UTC days (the day of each count's `minute`). */
  recordBlocked(reportId: string, counts: BlockedCount[]): Promise<void>;
  /** Per form named (of the organization): blocked requests over the UTC days [`fromDay`, `toDay`]; 0s left out. */
  getBlockedTotals(scope: OrgScope, formIds: string[], fromDay: string, toDay: string): Promise<Map<string, number>>;
  /** The form's days with blocked requests in [`fromDay`, `toDay`], oldest first. */
  getBlockedDays(scope: OrgScope, formId: string, fromDay: string, toDay: string): Promise<BlockedDay[]>;
}

/** Sums a report's counts per (form, organization, UTC day). */
export function blockedIncrements(counts: BlockedCount[]): { formId: string; orgId: string; day: string; n: number }[] {
  const sums = new Map<string, { formId: string; orgId: string; day: string; n: number }>();
  for (const c of counts) {
    const day = c.minute.slice(0, 10);
    const key = `${c.formId}\u0000${c.orgId}\u0000${day}`;
    const sum = sums.get(key) ?? { formId: c.formId, orgId: c.orgId, day, n: 0 };
    sum.n += c.count;
    sums.set(key, sum);
  }
  return [...sums.values()];
}
