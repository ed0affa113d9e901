import type { BusMessage, EventPublisher } from '@formgate/bus';
import { decodeEvent, encodeEvent, Topics } from '@formgate/contracts';
import type { UsageEntry, UsageStore } from '../store/usage-store.ts';

export interface PlanLimits {
  /** Submissions per organization per calendar month before new ones are held. */
  submissionsPerMonth: (orgId: string) => number;
}

/**
 * Meters `submission.received` (spam and held submissions are never billed) and publishes the organization's
 * quota view to the compacted `billing.quota` topic. Idempotent: a redelivered event is not counted again and
 * republishing the same count is harmless.
 */
export function createUsageHandler(deps: { store: UsageStore; bus: EventPublisher; plans: PlanLimits }) {
  return async (batch: BusMessage[]) => {
    const entries: UsageEntry[] = [];
    for (const m of batch) {
      const { data } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.spam.isSpam || data.held) continue;
      entries.push({ submissionId: data.submissionId, orgId: data.orgId, period: data.receivedAt.slice(0, 7) });
    }
    if (entries.length === 0) return;
    const counts = await deps.store.recordUsage(entries);
    await deps.bus.publish(
      Topics.billingQuota,
      counts.map(({ orgId, period, used }) => {
        const max = deps.plans.submissionsPerMonth(orgId);
        return {
          key: orgId,
          value: encodeEvent(Topics.billingQuota, {
            id: `${orgId}:${period}:${used}`,
            type: 'quota.updated',
            version: 1,
            occurredAt: new Date().toISOString(),
            data: { orgId, period, submissionsUsed: used, submissionsMax: max, overQuota: used >= max },
          }),
        };
      }),
    );
  };
}
