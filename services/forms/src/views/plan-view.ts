import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';

/**
 * Forms' in-memory view of each organization's plan, from `billing.quota` (replayed from the start of the compacted
 * topic at boot, then followed; like ingest's quota view). Views arrive out of order (several billing consumers
 * publish them): one computed from an older subscription state (`subscriptionChangedAt`) never replaces a newer
 * one. An organization without a view, or a view without `planId`, is on the default plan (`planOf` → undefined).
 */
export function createPlanView() {
  const byOrg = new Map<string, { planId: string; since: string }>();
  return {
    apply(message: BusMessage) {
      const { data } = decodeEvent(Topics.billingQuota, message.value);
      if (!data.planId) return;
      const since = data.subscriptionChangedAt ?? '';
      const current = byOrg.get(data.orgId);
      if (current && since < current.since) return;
      byOrg.set(data.orgId, { planId: data.planId, since });
    },
    planOf(orgId: string): string | undefined {
      return byOrg.get(orgId)?.planId;
    },
  };
}

export type PlanView = ReturnType<typeof createPlanView>;
