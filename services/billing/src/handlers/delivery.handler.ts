import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { UsageEntry, UsageStore } from '../store/usage-store.ts';

/**
 * Meters notification emails: every `delivery.succeeded` of the email channel (notifications and autoresponses; a
 * resend is a delivery of its own) counts once, by delivery id, in the period it was accepted by the mail server,
 * and the organization's quota view (`emailsUsed`, `emailsOverQuota`) is published. Redelivered or republished
 * events are not counted again. Webhooks and failed deliveries are not metered.
 */
export function createEmailUsageHandler(deps: { emails: UsageStore; quota: Quota }) {
  return async (batch: BusMessage[]) => {
    const entries: UsageEntry[] = [];
    for (const m of batch) {
      const event = decodeEvent(Topics.notificationsDelivery, m.value);
      if (event.type !== 'delivery.succeeded' || event.data.channel !== 'email') continue;
      entries.push({ id: event.data.deliveryId, orgId: event.data.orgId, period: billingPeriodOf(event.data.at) });
    }
    if (entries.length === 0) return;
    await deps.quota.publish(await deps.emails.recordUsage(entries));
  };
}
