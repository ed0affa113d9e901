import { type PreviousWebhookSecret, signWebhook, type WebhookSignatureHeaders } from '@formgate/kit/webhook-signing';
import { buildWebhookBody } from './webhook-body.ts';
import type { ChatBodyOptions, WebhookEvent, WebhookKind } from './webhook-event.ts';

export * from './send-webhook.ts';
export { isTargetRefusal } from './target-guard.ts';
export * from './webhook-body.ts';
export * from './webhook-event.ts';

export interface BuildWebhookRequestInput extends ChatBodyOptions {
  kind: WebhookKind;
  event: WebhookEvent;
  /** `webhook-id`: the same for every attempt of the delivery (the delivery's id). */
  msgId: string;
  /** This attempt's time. */
  now: Date;
  secret: string;
  previousSecret?: PreviousWebhookSecret | null;
}

/**
 * The body and the signed headers of one attempt, for `sendWebhook`. Every kind is signed (Slack and Discord ignore
 * the headers; the endpoint's URL is their secret).
 */
export function buildWebhookRequest(input: BuildWebhookRequestInput): {
  body: string;
  headers: WebhookSignatureHeaders;
} {
  const body = buildWebhookBody(input.kind, input.event, { submissionUrl: input.submissionUrl });
  const headers = signWebhook({
    msgId: input.msgId,
    timestamp: input.now,
    body,
    secret: input.secret,
    previous: input.previousSecret,
  });
  return { body, headers };
}
