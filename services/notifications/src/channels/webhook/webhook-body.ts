import { buildDiscordBody } from './discord-body.ts';
import { toInertJson } from './inert-json.ts';
import { buildRestHookJson } from './rest-hook-body.ts';
import { buildSlackBody } from './slack-body.ts';
import type { ChatBodyOptions, WebhookEvent, WebhookKind } from './webhook-event.ts';

/**
 * The Standard Webhooks body: `{type, timestamp, data}` where `data` is the submission as the API returns it plus
 * `form: {id, name}` (for `submission.deleted`, only `id`, `formId`, `createdAt` and `form`; for `submission.erased`,
 * those and `erasureId`). Values are complete, never cut.
 */
export function buildStandardBody(event: WebhookEvent): string {
  return toInertJson({
    type: event.type,
    timestamp: event.occurredAt,
    data: { ...event.submission, form: { id: event.form.id, name: event.form.name } },
  });
}

/** The body (a JSON string, sent as `application/json`) for an endpoint of `kind`. */
export function buildWebhookBody(kind: WebhookKind, event: WebhookEvent, options: ChatBodyOptions = {}): string {
  if (kind === 'slack') return buildSlackBody(event, options);
  if (kind === 'discord') return buildDiscordBody(event, options);
  if (kind === 'rest-hook') return buildRestHookJson(event);
  return buildStandardBody(event);
}
