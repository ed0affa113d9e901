import type { BusMessage, EventPublisher } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Clock } from '@formgate/kit';
import { quotaUpdatedMessage } from '../quota-event.ts';
import type { UsageStore } from '../store/usage-store.ts';
import type { PlanLimits } from './submission-received.handler.ts';

/**
 * `billing.org-purge` on `orgs.organization`: on `organization.deleted`, deletes the organization's usage ledger
 * (leaving a tombstone, so late submissions are not metered) and publishes a zero count for the current period, so the compacted `billing.quota` (and the views built from
 * it, such as ingest's) no longer holds the organization over quota. Idempotent: purging again and republishing
 * the same zero count change nothing.
 */
export function createOrgPurgeHandler(deps: {
  store: UsageStore;
  bus: EventPublisher;
  clock: Clock;
  plans: PlanLimits;
}) {
  return async (batch: BusMessage[]) => {
    for (const message of batch) {
      const event = decodeEvent(Topics.orgsOrganization, message.value);
      if (event.type !== 'organization.deleted') continue;
      const { orgId } = event.data;
      await deps.store.purgeOrganization({ orgId });
      const now = deps.clock.now();
      const quota = {
        orgId,
        period: billingPeriodOf(now),
        used: 0,
        max: deps.plans.submissionsPerMonth(orgId),
      };
      await deps.bus.publish(Topics.billingQuota, [quotaUpdatedMessage(quota, now.toISOString())]);
    }
  };
}
