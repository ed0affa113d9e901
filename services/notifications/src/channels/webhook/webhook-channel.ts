import { SpamReasonListSchema } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import {
  type AttemptContext,
  type DeliveryChannel,
  permanentFailure,
  type SendResult,
} from '../../deliveries/channel.ts';
import { RETRY_SCHEDULES } from '../../deliveries/retry-schedule.ts';
import { DELIVERY_TUNING } from '../../deliveries/tuning.ts';
import { submissionUrl } from '../../email/submission-view.ts';
import { redactWebhookUrl } from '../../endpoints/webhook-url.ts';
import type { Delivery, FormView, StoredSubmission } from '../../store/index.ts';
import { afterFinal, type EndpointHealthDeps } from './endpoint-health.ts';
import {
  buildWebhookRequest,
  sendWebhook,
  type WebhookEvent,
  type WebhookOutcome,
  type WebhookSubmission,
} from './index.ts';

export interface WebhookChannelDeps extends EndpointHealthDeps {
  /** `WEBHOOKS_ALLOW_PRIVATE_TARGETS`: deliver to loopback and private addresses (tests, self-hosted receivers). */
  allowPrivateTargets: boolean;
  timeoutMs?: number;
}

/** The submission as the API returns it (without scans: `WebhookSubmission`), from the copy `submission.received` carried. */
export const toSubmissionDto = (s: StoredSubmission, spam: boolean): WebhookSubmission => ({
  id: s.submissionId,
  formId: s.formId,
  createdAt: s.receivedAt,
  fields: s.fields,
  files: s.files,
  spam,
  // Copies stored before issue 14 hold reasons as strings.
  spamReasons: SpamReasonListSchema.parse(s.spam.reasons ?? []),
  held: s.held,
  origin: s.origin ?? null,
  referer: s.referer ?? null,
  // The copy notifications hold is whole: a no-store submission's is dropped before forms drops its content.
  contentDropped: false,
});

/** The log's view of an outcome: the HTTP status when there was one, else the failure's code; a short text. */
function responseOf(outcome: WebhookOutcome): SendResult['response'] {
  const text = outcome.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (outcome.ok) return { code: String(outcome.status), text };
  const code = outcome.status === undefined ? outcome.code : String(outcome.status);
  return { code, text: outcome.status === undefined ? text : `${outcome.code}${text ? `: ${text}` : ''}` };
}

/**
 * The webhook channel: builds and signs the body of one attempt (`webhook-id` = the
 * delivery's id, the same on every attempt), POSTs it with the SSRF guard, and after a delivery's final failure
 * disables its endpoint when it answered 410 Gone or when `FAILURES_BEFORE_DISABLING` deliveries in a row failed,
 * and mails the organization's verified notification addresses about it once.
 */
export function createWebhookChannel(deps: WebhookChannelDeps): DeliveryChannel {
  const { stores, endpoints, clock } = deps;

  async function eventOf(delivery: Delivery, form: FormView, known: AttemptContext): Promise<WebhookEvent | string> {
    const ref = delivery.webhookEvent;
    if (!ref) return 'the delivery has no event';
    const formRef = { id: form.id, name: form.name };
    const gone = { id: delivery.submissionId, formId: form.id, createdAt: ref.receivedAt };
    if (ref.type === 'submission.deleted')
      return { type: ref.type, occurredAt: ref.occurredAt, form: formRef, submission: gone };
    if (ref.type === 'submission.erased') {
      if (!ref.erasureId) return 'the erasure is not known';
      const submission = { ...gone, erasureId: ref.erasureId };
      return { type: ref.type, occurredAt: ref.occurredAt, form: formRef, submission };
    }
    const stored =
      known.submission ?? (await stores.views.getSubmission({ orgId: delivery.orgId }, delivery.submissionId));
    if (!stored) return 'the submission was deleted';
    const submission = toSubmissionDto(stored, ref.type === 'submission.spam');
    return { type: ref.type, occurredAt: ref.occurredAt, form: formRef, submission };
  }

  /** One attempt; `known`: what the caller read already (the form, the submission's copy, the form's endpoints). */
  async function send(delivery: Delivery, known: AttemptContext = {}): Promise<SendResult> {
    const { targetId } = delivery;
    const endpoint = targetId
      ? (known.endpoints?.find((e) => e.id === targetId) ?? (await endpoints.get({ orgId: delivery.orgId }, targetId)))
      : null;
    if (!endpoint) return permanentFailure('GONE', 'the webhook endpoint was deleted');
    if (!endpoint.enabled) return permanentFailure('WEBHOOK_ENDPOINT_DISABLED', 'the webhook endpoint is disabled');
    const form = known.form ?? (await stores.views.getForm({ orgId: delivery.orgId }, delivery.formId));
    if (!form) return permanentFailure('GONE', 'the form was deleted');
    const event = await eventOf(delivery, form, known);
    if (typeof event === 'string') return permanentFailure('GONE', event);
    const { body, headers } = buildWebhookRequest({
      kind: delivery.purpose as typeof endpoint.kind,
      event,
      msgId: delivery.id,
      now: clock.now(),
      secret: endpoint.secret,
      previousSecret: endpoint.previousSecret,
      submissionUrl: submissionUrl(deps.publicUrl, form.slug, delivery.submissionId),
    });
    const outcome = await sendWebhook({
      url: delivery.target,
      body,
      headers,
      timeoutMs: deps.timeoutMs ?? DELIVERY_TUNING.webhookAttemptTimeoutMs,
      allowPrivateTargets: deps.allowPrivateTargets,
    });
    return {
      ok: outcome.ok,
      retryable: !outcome.ok && outcome.retryable,
      response: responseOf(outcome),
      messageId: delivery.id,
    };
  }

  /** A resend goes to the endpoint as it is now (its URL may have been corrected since), enabled. */
  async function resendOf(original: Delivery) {
    const endpoint = original.targetId ? await endpoints.get({ orgId: original.orgId }, original.targetId) : null;
    if (!endpoint) throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    if (!endpoint.enabled) throw new AppError('NOTIFICATIONS_WEBHOOK_DISABLED');
    return { purpose: endpoint.kind, target: endpoint.url, targetId: endpoint.id, webhookEvent: original.webhookEvent };
  }

  return {
    kind: 'webhook',
    retrySchedule: RETRY_SCHEDULES.webhook,
    spanName: 'webhook POST',
    send,
    afterFinal: (delivery) => afterFinal(deps, delivery),
    // A webhook's URL can be its credential (Slack, Discord): events and members who do not manage it see less.
    eventTarget: (d) => d.targetId ?? '',
    shownTarget: (d) => redactWebhookUrl(d.target),
    resendOf,
  };
}
