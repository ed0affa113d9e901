import type { UsageCount, UsageEntry } from './records.ts';

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
  /**
   * Records entries; returns the current count of every (orgId, period) of a live organization they touched.
   * `writer`: the stream the call belongs to — a consumer's topic and partition (`recordByWriter`). Calls of one writer
   * never overlap (a partition is handled by one consumer at a time, one batch after the other); calls of different
   * writers may, on the same organization and period.
   */
  recordUsage(entries: UsageEntry[], writer: string): Promise<UsageCount[]>;
  getUsage(scope: { orgId: string }, period: string): Promise<number>;
  /** Deletes the organization's whole ledger (every period) and keeps it from being metered again. */
  purgeOrganization(scope: { orgId: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Records the entries of a consumer batch, each under its writer (`recordUsage`): the handler's name, the topic and
 * the partition of the message it came from (a batch is one partition's; grouped all the same).
 */
export async function recordByWriter(
  store: UsageStore,
  handler: string,
  metered: { from: { topic: string; partition: number }; entry: UsageEntry }[],
): Promise<UsageCount[]> {
  const byWriter = new Map<string, UsageEntry[]>();
  for (const { from, entry } of metered) {
    const writer = `${handler}:${from.topic}:${from.partition}`;
    byWriter.set(writer, [...(byWriter.get(writer) ?? []), entry]);
  }
  const counts: UsageCount[] = [];
  for (const [writer, entries] of byWriter) counts.push(...(await store.recordUsage(entries, writer)));
  return counts;
}
