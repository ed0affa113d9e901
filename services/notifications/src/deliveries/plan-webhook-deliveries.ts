import type { WebhookEventType } from '@formgate/contracts';
import type { Clock, Ids } from '@formgate/kit';
import type { Delivery, FormView, WebhookEndpoint, WebhookEventRef } from '../store/index.ts';
import { newDelivery } from './plan-deliveries.ts';

/** The endpoints of a form that hear about `type`: enabled and subscribed to it. */
export const subscribers = (endpoints: WebhookEndpoint[], type: WebhookEventType) =>
  endpoints.filter((e) => e.enabled && e.events.includes(type));

/**
 * One `webhook` delivery per endpoint of `endpoints` that hears about the event. The id is derived from `cause`
 * (what makes the event happen once: the submission for its receipt and deletion, the event's id for a spam mark)
 * and the endpoint, so a redelivered event plans the same deliveries.
 */
export function webhookDeliveriesFor(
  deps: { clock: Clock; ids: Ids },
  input: {
    form: FormView;
    submissionId: string;
    event: WebhookEventRef & { type: WebhookEventType };
    cause: string;
    endpoints: WebhookEndpoint[];
  },
): Delivery[] {
  return deliveriesTo(deps, { ...input, endpoints: subscribers(input.endpoints, input.event.type) });
}

/**
 * The `submission.erased` deliveries of an erasure: one per enabled endpoint of the form that a delivery of the
 * submission `sent` reached or may have reached (attempted at least once), whatever it subscribes to, REST hooks
 * excepted. The ids derive from the submission and the endpoint, so a redelivered erasure plans the same deliveries.
 */
export function erasureDeliveriesFor(
  deps: { clock: Clock; ids: Ids },
  input: {
    form: FormView;
    submissionId: string;
    event: WebhookEventRef;
    sent: Delivery[];
    endpoints: WebhookEndpoint[];
  },
): Delivery[] {
  const reached = new Set(
    input.sent
      .filter((d) => d.channel === 'webhook' && d.lastClaimed > 0 && d.webhookEvent?.type !== 'submission.erased')
      .map((d) => d.targetId),
  );
  // A REST hook hears only the event it subscribed to: an erasure would run a "new submission" zap with no fields.
  const endpoints = input.endpoints.filter((e) => e.enabled && e.kind !== 'rest-hook' && reached.has(e.id));
  return deliveriesTo(deps, { ...input, cause: input.submissionId, endpoints });
}

function deliveriesTo(
  deps: { clock: Clock; ids: Ids },
  input: { form: FormView; submissionId: string; event: WebhookEventRef; cause: string; endpoints: WebhookEndpoint[] },
): Delivery[] {
  const { form, submissionId, event } = input;
  return input.endpoints.map((endpoint) => ({
    ...newDelivery(deps, {
      id: deps.ids.derived('webhook-delivery', input.cause, event.type, endpoint.id),
      orgId: form.orgId,
      formId: form.id,
      submissionId,
      channel: 'webhook',
      purpose: endpoint.kind,
      target: endpoint.url,
      resendOf: null,
    }),
    targetId: endpoint.id,
    webhookEvent: event,
  }));
}
