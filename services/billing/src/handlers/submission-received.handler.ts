import type { BusMessage, EventPublisher } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Clock } from '@formgate/kit';
import { quotaUpdatedMessage } from '../quota-event.ts';
import type { UsageEntry, UsageStore } from '../store/usage-store.ts';

export interface PlanLimits {
  /** Submissions per organization per calendar month before new ones are held. */
  submissionsPerMonth: (orgId: string) => number;
  /** Notification emails per organization per calendar month (the spec's "submission email quota"). */
  emailsPerMonth: (orgId: string) => number;
}

/**
 * Meters `submission.received` (spam and held submissions are never billed) and publishes the organization's
 * quota view to the compacted `billing.quota` topic. Idempotent: a redelivered event is not counted again and
 * republishing the same count is harmless. A submission of an organization already purged (ingest accepted it
 * before it learned of the deletion) is dropped by the store, which returns no count for it.
 */
export function createUsageHandler(deps: { store: UsageStore; bus: EventPublisher; clock: Clock; plans: PlanLimits }) {
  return async (batch: BusMessage[]) => {
    const entries: UsageEntry[] = [];
    for (const m of batch) {
      const { data } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.spam.isSpam || data.held) continue;
      entries.push({ id: data.submissionId, orgId: data.orgId, period: billingPeriodOf(data.receivedAt) });
    }
    if (entries.length === 0) return;
    const counts = await deps.store.recordUsage(entries);
    const occurredAt = deps.clock.now().toISOString();
    await deps.bus.publish(
      Topics.billingQuota,
      counts.map((c) => quotaUpdatedMessage({ ...c, max: deps.plans.submissionsPerMonth(c.orgId) }, occurredAt)),
    );
  };
}
