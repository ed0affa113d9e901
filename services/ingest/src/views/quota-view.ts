import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';

/** Ingest's in-memory view of `billing.quota`: which organizations are over their plan this period. */
export function createQuotaView() {
  const byOrg = new Map<string, QuotaUpdated['data']>();
  return {
    apply(message: BusMessage) {
      const { data } = decodeEvent(Topics.billingQuota, message.value);
      // Billing counts only what it recorded, so never 0, except after it purged a deleted organization's ledger.
      if (data.submissionsUsed === 0) {
        byOrg.delete(data.orgId);
        return;
      }
      const current = byOrg.get(data.orgId);
      if (
        current &&
        (current.period > data.period ||
          (current.period === data.period && current.submissionsUsed > data.submissionsUsed))
      ) {
        return;
      }
      byOrg.set(data.orgId, data);
    },
    isOverQuota(orgId: string, period: string): boolean {
      const q = byOrg.get(orgId);
      return q !== undefined && q.period === period && q.overQuota;
    },
  };
}

export type QuotaView = ReturnType<typeof createQuotaView>;

/** The quota period (calendar month, UTC) of an ISO 8601 UTC timestamp such as `Date#toISOString()` gives. */
