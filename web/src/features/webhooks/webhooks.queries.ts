import type {
  CreateWebhookRequest,
  UpdateWebhookRequest,
  WebhookEndpointDto,
  WebhookEndpointWithSecretDto,
} from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

/* A form's webhook endpoints (the notifications API). Secrets are never cached: only the answer of a creation or a
   rotation carries one, which the screen holds until the person dismisses it. */

export const webhooksKeys = { ofForm: (formId: string) => ['webhooks', formId] as const };

const ofForm = (formId: string) => `/api/v1/forms/${encodeURIComponent(formId)}/webhooks`;
const ofEndpoint = (formId: string, id: string) => `${ofForm(formId)}/${encodeURIComponent(id)}`;

/** The form's endpoints, with their recent success rates. */
export const webhooksQuery = (formId: string) =>
  queryOptions({
    queryKey: webhooksKeys.ofForm(formId),
    queryFn: async () => (await apiFetch<{ data: WebhookEndpointDto[] }>(ofForm(formId))).data,
  });

/** → the new endpoint with its signing secret, the only time it is shown. */
export const createWebhook = (formId: string, body: CreateWebhookRequest) =>
  apiFetch<WebhookEndpointWithSecretDto>(ofForm(formId), { method: 'POST', json: body });

export const updateWebhook = (formId: string, id: string, body: UpdateWebhookRequest) =>
  apiFetch<WebhookEndpointDto>(ofEndpoint(formId, id), { method: 'PATCH', json: body });

export const deleteWebhook = (formId: string, id: string) =>
  apiFetch<void>(ofEndpoint(formId, id), { method: 'DELETE' });

/** → the endpoint with its new signing secret; the old one stops working. */
export const rotateWebhookSecret = (formId: string, id: string) =>
  apiFetch<WebhookEndpointWithSecretDto>(`${ofEndpoint(formId, id)}/rotate-secret`, { method: 'POST', json: {} });

/** "12 of 13 recent deliveries succeeded (92%)", or that there is none yet. */
export function successText({ succeeded, failed, successRate }: WebhookEndpointDto['stats']): string {
  if (successRate === null) return 'No finished deliveries yet';
  return `${succeeded} of ${succeeded + failed} recent deliveries succeeded (${Math.round(successRate * 100)}%)`;
}
