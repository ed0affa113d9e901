import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';
import type { Ids } from '@formgate/kit';
import { type Delivery, isFinal, type OutcomeOutbox } from '../store/index.ts';
import { channelOf, type DeliveryChannels } from './channel.ts';

const eventType = (d: Delivery) =>
  d.status === 'succeeded' ? 'delivery.succeeded' : d.status === 'failed' ? 'delivery.failed' : 'delivery.deferred';

/**
 * publish, the last phase of an attempt: `delivery.succeeded` / `delivery.failed` for final deliveries and
 * `delivery.deferred` for deferred ones, then their pending marks cleared (each its own: a deferral published while
 * the delivery was released and finished leaves the outcome pending). `batchSuccesses`: a consumer batch's
 * successes, which have no mark (closing the batch is theirs) and were never deferred (billing skips its ledger).
 * An event id derives from the delivery and its status: a publication made twice carries the same id. Once marked,
 * the final ones are handed to `afterPublished` (a no-store submission may be settled now: `settle-submission.ts`).
 */
export function createOutcomePublisher(deps: {
  bus: EventPublisher;
  outbox: OutcomeOutbox;
  ids: Ids;
  channels: DeliveryChannels;
  /** After the marks; never rejects. Not given a batch's successes: their batch is still open. */
  afterPublished?: (final: Delivery[]) => Promise<void>;
}) {
  return async function publishOutcomes(deliveries: Delivery[], batchSuccesses: ReadonlySet<string> = new Set()) {
    const final = deliveries.filter((d) => isFinal(d.status));
    const deferred = deliveries.filter((d) => d.status === 'deferred');
    if (final.length === 0 && deferred.length === 0) return;
    const messages = [...final, ...deferred].map((d) => ({
      key: d.orgId,
      value: encodeEvent(Topics.notificationsDelivery, {
        id: deps.ids.derived('delivery-outcome', d.id, d.status),
        type: eventType(d),
        version: 1,
        occurredAt: d.updatedAt,
        data: {
          deliveryId: d.id,
          orgId: d.orgId,
          formId: d.formId,
          submissionId: d.submissionId,
          channel: d.channel,
          purpose: d.purpose,
          target: channelOf(deps.channels, d).eventTarget(d),
          // A deferral names the attempt that will follow it.
          attempt: d.status === 'deferred' ? d.lastClaimed + 1 : Math.max(d.attempts, 1),
          final: isFinal(d.status),
          at: d.updatedAt,
          ...(batchSuccesses.has(d.id) ? { neverDeferred: true } : {}),
        },
      }),
    }));
    await deps.bus.publish(Topics.notificationsDelivery, messages);
    const marked = final.filter((d) => !batchSuccesses.has(d.id));
    if (marked.length > 0) await deps.outbox.markPublished(marked.map((d) => d.id));
    if (deferred.length > 0) await deps.outbox.markDeferralPublished(deferred.map((d) => d.id));
    if (marked.length > 0) await deps.afterPublished?.(marked);
  };
}

export type PublishOutcomes = ReturnType<typeof createOutcomePublisher>;
