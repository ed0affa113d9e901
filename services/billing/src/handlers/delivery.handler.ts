import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { HeldStore } from '../store/held-store.ts';
import type { HeldEntry, UsageEntry } from '../store/records.ts';
import { recordByWriter, type UsageStore } from '../store/usage-store.ts';

/**
 * Meters notification emails: every `delivery.succeeded` of the email channel (notifications and autoresponses; a
 * resend is a delivery of its own) counts once, by delivery id, in the period it was accepted by the mail server,
 * and the organization's quota view (`emailsUsed`, `emailsOverQuota`) is published. Redelivered or republished
 * events are not counted again. Webhooks and failed deliveries are not metered.
 *
 * Keeps the deferred emails' ledger too (`emails.deferred` of the usage API): a `delivery.deferred` enters it, the
 * delivery's `delivery.succeeded` / `delivery.failed` leaves it for good (a deferral republished after the outcome,
 * or redelivered, does not enter it again) — except an outcome marked `neverDeferred`, which has no deferral to
 * settle and writes nothing there. Idempotent by delivery id.
 */
export function createEmailUsageHandler(deps: { emails: UsageStore; deferredEmails: HeldStore; quota: Quota }) {
  return async (batch: BusMessage[]) => {
    const entries: { from: BusMessage; entry: UsageEntry }[] = [];
    const deferred: HeldEntry[] = [];
    const settled: HeldEntry[] = [];
    for (const m of batch) {
      const event = decodeEvent(Topics.notificationsDelivery, m.value);
      // A no-store submission's deliveries done (`submission.settled`): nothing to meter.
      if (event.type === 'submission.settled' || event.data.channel !== 'email') continue;
      const entry = { id: event.data.deliveryId, orgId: event.data.orgId };
      if (event.type === 'delivery.deferred') {
        deferred.push(entry);
        continue;
      }
      // Never deferred (ADR 65): no deferral of it can arrive, so the ledger needs no record that it left.
      if (!event.data.neverDeferred) settled.push(entry);
      if (event.type === 'delivery.succeeded') {
        entries.push({ from: m, entry: { ...entry, period: billingPeriodOf(event.data.at) } });
      }
    }
    // Deferrals before outcomes: an outcome in the same batch settles its deferral.
    if (deferred.length > 0) await deps.deferredEmails.hold(deferred);
    const counts = entries.length > 0 ? await recordByWriter(deps.emails, 'emails', entries) : [];
    if (settled.length > 0) await deps.deferredEmails.release(settled);
    if (counts.length > 0) await deps.quota.publish(counts);
  };
}
