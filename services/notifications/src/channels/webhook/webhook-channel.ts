import { SpamReasonListSchema, type SubmissionDto } from '@formgate/contracts';
import { AppError, type Clock, type Logger } from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import type { AttemptContext, DeliveryChannel, SendResult } from '../../deliveries/channel.ts';
import { RETRY_SCHEDULES } from '../../deliveries/retry-schedule.ts';
import { submissionUrl } from '../../email/submission-view.ts';
import { composeWebhookDisabled } from '../../email/webhook-disabled.tsx';
import type { WebhookEndpoint, WebhookEndpointStore } from '../../endpoints/webhook-endpoint-store.ts';
import { redactWebhookUrl } from '../../endpoints/webhook-url.ts';
import type { VerifiedRecipients } from '../../recipients/recipient-store.ts';
import type { Delivery, FormView, NotificationStores, StoredSubmission } from '../../store/index.ts';
import { buildWebhookRequest, sendWebhook, type WebhookEvent, type WebhookOutcome } from './index.ts';

/** One attempt's deadline: DNS, connect, TLS, request and the response's status. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;
/** Deliveries in a row failed for good (since the endpoint was last enabled) that disable it. */
export const FAILURES_BEFORE_DISABLING = 5;
/** Codes of failures that say nothing about the endpoint: they neither count towards disabling nor break a run. */
const NOT_THE_ENDPOINTS_FAULT = new Set(['GONE', 'WEBHOOK_ENDPOINT_DISABLED', 'ABANDONED']);

export interface WebhookChannelDeps {
  stores: Pick<NotificationStores, 'log' | 'views'>;
  endpoints: WebhookEndpointStore;
  /** Tells the organization's verified addresses that an endpoint was disabled. */
  mailer: Mailer;
  recipients: VerifiedRecipients;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  /** `WEBHOOKS_ALLOW_PRIVATE_TARGETS`: deliver to loopback and private addresses (tests, self-hosted receivers). */
  allowPrivateTargets: boolean;
  timeoutMs?: number;
}

/** The submission as the API returns it, from the copy `submission.received` carried. */
export const toSubmissionDto = (s: StoredSubmission, spam: boolean): SubmissionDto => ({
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
});

/** The log's view of an outcome: the HTTP status when there was one, else the failure's code; a short text. */
function responseOf(outcome: WebhookOutcome): SendResult['response'] {
  const text = outcome.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (outcome.ok) return { code: String(outcome.status), text };
  const code = outcome.status === undefined ? outcome.code : String(outcome.status);
  return { code, text: outcome.status === undefined ? text : `${outcome.code}${text ? `: ${text}` : ''}` };
}

const failed = (code: string, text: string): SendResult => ({
  ok: false,
  retryable: false,
  response: { code, text },
  messageId: null,
});

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
    if (ref.type === 'submission.deleted') {
      const submission = { id: delivery.submissionId, formId: form.id, createdAt: ref.receivedAt };
      return { type: ref.type, occurredAt: ref.occurredAt, form: formRef, submission };
    }
    const stored = known.submission ?? (await stores.views.getSubmission(delivery.submissionId));
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
    if (!endpoint) return failed('GONE', 'the webhook endpoint was deleted');
    if (!endpoint.enabled) return failed('WEBHOOK_ENDPOINT_DISABLED', 'the webhook endpoint is disabled');
    const form = known.form ?? (await stores.views.getForm(delivery.formId));
    if (!form || form === 'deleted') return failed('GONE', 'the form was deleted');
    const event = await eventOf(delivery, form, known);
    if (typeof event === 'string') return failed('GONE', event);
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
      timeoutMs: deps.timeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS,
      allowPrivateTargets: deps.allowPrivateTargets,
    });
    return {
      ok: outcome.ok,
      retryable: !outcome.ok && outcome.retryable,
      response: responseOf(outcome),
      messageId: delivery.id,
    };
  }

  /** Whether the endpoint's latest final deliveries since `enabledAt` are `FAILURES_BEFORE_DISABLING` failures. */
  async function failingInARow(endpoint: WebhookEndpoint) {
    const scope = { orgId: endpoint.orgId };
    const { enabledAt } = endpoint;
    const recent = await stores.log.listByTarget(scope, endpoint.id, 4 * FAILURES_BEFORE_DISABLING);
    const finals = recent
      .filter((d) => (d.status === 'succeeded' || d.status === 'failed') && d.updatedAt >= enabledAt)
      .filter((d) => !NOT_THE_ENDPOINTS_FAULT.has(d.lastResponse?.code ?? ''))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
      .slice(0, FAILURES_BEFORE_DISABLING);
    return finals.length === FAILURES_BEFORE_DISABLING && finals.every((d) => d.status === 'failed');
  }

  /** After a delivery's final outcome: disables its endpoint when it should be (idempotent). */
  async function afterFinal(delivery: Delivery): Promise<void> {
    if (delivery.status !== 'failed' || !delivery.targetId) return;
    const scope = { orgId: delivery.orgId };
    const endpoint = await endpoints.get(scope, delivery.targetId);
    if (!endpoint?.enabled) return;
    const gone = delivery.lastResponse?.code === '410';
    if (!gone && !(await failingInARow(endpoint))) return;
    const reason = gone
      ? 'The endpoint answered 410 Gone'
      : `${FAILURES_BEFORE_DISABLING} deliveries in a row failed (last: ${delivery.lastResponse?.code ?? 'unknown'})`;
    // Recorded for the time it was enabled at `enabledAt`, never written on the endpoint (one writer per document):
    // it can neither undo a person's concurrent change nor outlive a re-enabling.
    await endpoints.disable(endpoint, { reason, at: clock.now().toISOString() });
    deps.logger.warn({ endpointId: endpoint.id, formId: endpoint.formId, reason }, 'webhook endpoint disabled');
    // Once per disabling (per time it was enabled), whichever instance disabled it.
    if (await endpoints.claimNotice(`disabled:${endpoint.id}:${endpoint.enabledAt}`)) {
      await tellOrganization({ ...endpoint, disabledReason: reason });
    }
  }

  /** Mails each verified notification address of the organization; best effort, one try (the dashboard shows it too). */
  async function tellOrganization(endpoint: WebhookEndpoint) {
    const form = await stores.views.getForm(endpoint.formId);
    if (!form || form === 'deleted') return;
    const settingsUrl = `${deps.publicUrl}/dashboard/forms/${encodeURIComponent(form.slug)}/settings`;
    for (const to of await deps.recipients.listVerified(endpoint.orgId)) {
      try {
        const reason = endpoint.disabledReason ?? 'it kept failing';
        await deps.mailer.send(
          await composeWebhookDisabled({ to, formName: form.name, url: endpoint.url, reason, settingsUrl }),
        );
      } catch (err) {
        deps.logger.warn(
          { err: { name: (err as Error).name }, endpointId: endpoint.id },
          'disabled-webhook notice not sent',
        );
      }
    }
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
    afterFinal,
    // A webhook's URL can be its credential (Slack, Discord): events and members who do not manage it see less.
    eventTarget: (d) => d.targetId ?? '',
    shownTarget: (d) => redactWebhookUrl(d.target),
    resendOf,
  };
}
