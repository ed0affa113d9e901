import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';

type Quota = QuotaUpdated['data'];

/**
 * Views arrive out of order (several billing consumers publish them): an older period is stale; within a period, one
 * computed from an older subscription state is stale (a move to a higher plan is never undone by a count computed
 * before it), and from the same state, a lower count is. A view equal on all three (a plan change at the same count,
 * new emails) applies.
 */
function isStale(incoming: Quota, current: Quota): boolean {
  if (incoming.period !== current.period) return incoming.period < current.period;
  const since = incoming.subscriptionChangedAt ?? '';
  const currentSince = current.subscriptionChangedAt ?? '';
  if (since !== currentSince) return since < currentSince;
  return incoming.submissionsUsed < current.submissionsUsed;
}

/** Ingest's in-memory view of `billing.quota`: which organizations are over their plan this period. */
export function createQuotaView() {
  const byOrg = new Map<string, Quota>();
  /** The plan of every organization billing has published a view of (kept when its count is reset). */
  const plans = new Map<string, string>();
  /** The last storage measure of each organization (views carry one only when storage may have changed). */
  const storage = new Map<string, NonNullable<Quota['fileStorage']>>();
  return {
    apply(message: BusMessage) {
      const { data } = decodeEvent(Topics.billingQuota, message.value);
      // Measures are ordered by when they were taken, whatever the counts of the view carrying them.
      const measured = data.fileStorage;
      if (measured && measured.measuredAt >= (storage.get(data.orgId)?.measuredAt ?? '')) {
        storage.set(data.orgId, measured);
      }
      const current = byOrg.get(data.orgId);
      if (data.planId !== undefined && !(current && isStale(data, current))) plans.set(data.orgId, data.planId);
      // Nothing used: its ledger was purged (a deleted organization) or the period just began; never over quota.
      if (data.submissionsUsed === 0) {
        byOrg.delete(data.orgId);
        return;
      }
      if (current && isStale(data, current)) return;
      byOrg.set(data.orgId, data);
    },
    /** The organization's plan id, as billing last published it; undefined: the default plan. */
    planOf(orgId: string): string | undefined {
      return plans.get(orgId);
    },
    /** Whether the organization's stored files reach its plan's limit: ingest takes no more files from it. */
    isStorageFull(orgId: string): boolean {
      return storage.get(orgId)?.full === true;
    },
    isOverQuota(orgId: string, period: string): boolean {
      const q = byOrg.get(orgId);
      return q !== undefined && q.period === period && q.overQuota;
    },
  };
}

export type QuotaView = ReturnType<typeof createQuotaView>;

/** The quota period (calendar month, UTC) of an ISO 8601 UTC timestamp such as `Date#toISOString()` gives. */
