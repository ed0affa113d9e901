import type { DeliveryDto } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

/* A submission's delivery log (emails and webhooks), resends and a form's replay: the notifications API. */

export const deliveriesKeys = {
  all: (formId: string) => ['deliveries', formId] as const,
  ofSubmission: (formId: string, submissionId: string) => ['deliveries', formId, submissionId] as const,
};

const ofForm = (formId: string) => `/api/v1/forms/${encodeURIComponent(formId)}`;
const ofSubmission = (formId: string, submissionId: string) =>
  `${ofForm(formId)}/submissions/${encodeURIComponent(submissionId)}/deliveries`;

/** A delivery still in flight: being sent now, or retried within the next minute. */
export function inFlight(d: DeliveryDto, now = Date.now()): boolean {
  if (d.status === 'pending') return true;
  return d.status === 'retrying' && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - now < 60_000;
}

/** Every delivery of one submission, oldest first; polled while one is in flight. */
export const deliveriesQuery = (formId: string, submissionId: string) =>
  queryOptions({
    queryKey: deliveriesKeys.ofSubmission(formId, submissionId),
    queryFn: async () => (await apiFetch<{ data: DeliveryDto[] }>(ofSubmission(formId, submissionId))).data,
    refetchInterval: (query) => (query.state.data?.some((d) => inFlight(d)) ? 3_000 : false),
  });

/** Sends one delivery again, as a new delivery (`resendOf` → the original) attempted at once. */
export const resendDelivery = (formId: string, submissionId: string, deliveryId: string) =>
  apiFetch<DeliveryDto>(`${ofSubmission(formId, submissionId)}/${encodeURIComponent(deliveryId)}/resend`, {
    method: 'POST',
    // Every mutation of the API is JSON, even one without fields.
    json: {},
  });

export interface ReplayRequest {
  from: string;
  to: string;
  status: 'failed';
}

/** Re-attempts the form's failed deliveries of submissions received in [from, to]. */
export const replayDeliveries = (formId: string, body: ReplayRequest) =>
  apiFetch<{ replayed: number }>(`${ofForm(formId)}/deliveries/replay`, { method: 'POST', json: body });
