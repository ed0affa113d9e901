import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Quota } from '../quota.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';

/**
 * `billing.subscriptions` on `billing.subscription`: applies each `subscription.changed` (once by event id, the
 * newest by `changedAt`) and publishes the organization's quota view for the current period, so a higher plan
 * raises the maximum ingest and forms see (and the file storage limit). The view is published even when the change was not applied: a retry
 * after a failure between the two must still publish, and the same view is the same event.
 */
export function createSubscriptionChangedHandler(deps: {
  subscriptions: SubscriptionStore;
  quota: Quota;
  logger: Logger;
}) {
  return async (batch: BusMessage[]) => {
    const orgs = new Set<string>();
    for (const m of batch) {
      const { id, data } = decodeEvent(Topics.billingSubscription, m.value);
      const changedAt = new Date(data.changedAt);
      if (Number.isNaN(changedAt.getTime())) {
        deps.logger.warn({ eventId: id, orgId: data.orgId }, 'subscription.changed without a valid changedAt: ignored');
        continue;
      }
      await deps.subscriptions.apply({ ...data, eventId: id, changedAt: changedAt.toISOString() });
      orgs.add(data.orgId);
    }
    await deps.quota.publish(
      [...orgs].map((orgId) => ({ orgId })),
      { storage: true },
    );
  };
}
