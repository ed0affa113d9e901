import { buildRestHookBody } from '@formgate/contracts';
import { toInertJson } from './inert-json.ts';
import { carriesContent, type WebhookEvent } from './webhook-event.ts';

/**
 * A REST hook's body (Zapier, Make, n8n): `buildRestHookBody` of contracts, which the forms service's sample
 * (`GET /api/v1/hooks/sample`) builds too, so a platform maps fields from the sample and receives the same shape.
 * Files are listed by name, type and size: no blob key, no link.
 */
export function buildRestHookJson(event: WebhookEvent): string {
  const content = carriesContent(event) ? event.submission : null;
  return toInertJson(buildRestHookBody({ event: event.type, form: event.form, submission: event.submission, content }));
}
