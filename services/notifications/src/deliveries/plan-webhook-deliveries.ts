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
  input: { form: FormView; submissionId: string; event: WebhookEventRef; cause: string; endpoints: WebhookEndpoint[] },
): Delivery[] {
  const { form, submissionId, event } = input;
  return subscribers(input.endpoints, event.type).map((endpoint) => ({
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
