import type { BusMessage } from '@formgate/bus';
import { decodeEvent, encodeEvent, type SubmissionReceived, Topics } from '@formgate/contracts';
import { type Logger, mapLimit } from '@formgate/kit';
import pLimit from 'p-limit';
import { subscribers, webhookDeliveriesFor } from '../endpoints/plan-webhook-deliveries.ts';
import type { WebhookEndpoint, WebhookEndpointStore } from '../endpoints/webhook-endpoint-store.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { Delivery, DeliveryStore, FormView } from './delivery-store.ts';
import { deliveriesFor, type PlanDeps } from './plan-deliveries.ts';
import type { AttemptContext } from './ports.ts';
import { createSendBacklog } from './send-backlog.ts';

/**
 * The form of a submission is not in the view yet, or only at a version older than the one ingest accepted the
 * submission under (`forms.form` lags): the bus retries, without limit, so the submission is handled under the
 * settings in force when it was accepted (read your own settings).
 */
export class FormNotYetKnownError extends Error {
  readonly retryable = true;
  constructor(formId: string, version?: number) {
    super(`form ${formId} is not in the notifications view${version ? ` at version ${version}` : ''} yet`);
    this.name = 'FormNotYetKnownError';
  }
}

/** The newest form version the submissions of one form were accepted under (0: none says). */
const acceptedUnder = (received: { data: { formVersion?: number } }[]) =>
  received.reduce((v, r) => Math.max(v, r.data.formVersion ?? 0), 0);

/** `forms.form` → the forms view (highest version wins; a deleted form stays deleted). */
export function createFormsViewHandler(deps: { store: DeliveryStore }) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsForm, m.value);
      if (event.type === 'form.deleted') {
        await deps.store.deleteForm(event.data.formId, event.data.version);
        continue;
      }
      const { id, orgId, name, slug, settings, version } = event.data;
      await deps.store.applyForm({ id, orgId, name, slug, notifications: settings.notifications, version });
    }
  };
}

type HandlerDeps = PlanDeps & { runner: DeliveryRunner; endpoints: WebhookEndpointStore; logger: Logger };

/**
 * Plans `wanted` (insert-if-absent), makes the first attempt of those never claimed, and publishes the final
 * outcomes of these deliveries (again, with the same event ids, when the event is redelivered).
 */
async function planAndAttempt(deps: HandlerDeps, submissionId: string, wanted: Delivery[]) {
  const planned = await deps.store.planDeliveries(wanted);
  await Promise.all(cheapFirst(planned.filter((d) => d.lastClaimed === 0)).map((d) => deps.runner.attempt(d)));
  const ids = new Set(wanted.map((d) => d.id));
  const after = await deps.store.listBySubmission(submissionId);
  await deps.runner.publishOutcomes(after.filter((d) => ids.has(d.id)));
}

/**
 * A released submission (issue 13), or one released from spam (issue 14: marked not spam, carrying the
 * submission), as the `submission.received` it would have been had it been neither held nor spam: same submission,
 * so the same delivery ids, hence a redelivered release plans nothing new.
 */
function asReceived(
  m: BusMessage,
  event: { id: string; occurredAt: string },
  data: SubmissionReceived['data'],
): BusMessage {
  const value = encodeEvent(Topics.ingestSubmission, {
    id: event.id,
    type: 'submission.received',
    version: 1,
    occurredAt: event.occurredAt,
    data,
  });
  return { ...m, value };
}

/**
 * `forms.submission` → a release, or a release from spam (a not-spam mark carrying the submission), is notified as a received submission that is not held (emails unless spam,
 * webhooks `submission.created` / `submission.spam`, by `createSubmissionReceivedHandler`); a deletion is sent to the endpoints subscribed to `submission.deleted`, then the submission
 * is forgotten here too (its delivery log stays); a mark as spam (`spam: true`, not spam before) is sent to those
 * subscribed to `submission.spam`, when the submission's copy is here (kept when the form had such an endpoint at
 * its receipt). Idempotent: the deliveries' ids derive from the submission (deletion) or the event (spam mark).
 */
export function createSubmissionChangesHandler(deps: HandlerDeps) {
  const { store } = deps;
  const received = createSubmissionReceivedHandler(deps);
  const viewOf = async (formId: string, orgId: string) => {
    const form = await store.getForm(formId);
    return form && form !== 'deleted' && form.orgId === orgId ? form : null;
  };
  const handle = async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      if (event.type === 'submission.released') {
        const { releasedAt: _r, ...data } = event.data;
        await received([asReceived(m, event, data)]);
        continue;
      }
      if (event.type === 'submission.spam-marked' && !event.data.spam && event.data.submission) {
        // Released from spam: notified as received (the first time only: the delivery ids derive from the
        // submission, and forms releases a submission from spam once).
        await received([asReceived(m, event, event.data.submission)]);
        continue;
      }
      const { submissionId, formId, orgId, receivedAt } = event.data;
      const form = await viewOf(formId, orgId);
      if (event.type === 'submission.deleted') {
        if (form) {
          const wanted = webhookDeliveriesFor(deps, {
            form,
            submissionId,
            cause: submissionId,
            event: { type: 'submission.deleted', occurredAt: event.occurredAt, receivedAt },
            endpoints: await deps.endpoints.listByForm({ orgId }, formId),
          });
          if (wanted.length > 0) await planAndAttempt(deps, submissionId, wanted);
        }
        await store.deleteSubmission(submissionId);
        continue;
      }
      if (!form || !event.data.spam || event.data.wasSpam || !(await store.getSubmission(submissionId))) continue;
      const wanted = webhookDeliveriesFor(deps, {
        form,
        submissionId,
        cause: event.id,
        event: { type: 'submission.spam', occurredAt: event.occurredAt, receivedAt },
        endpoints: await deps.endpoints.listByForm({ orgId }, formId),
      });
      if (wanted.length > 0) await planAndAttempt(deps, submissionId, wanted);
    }
  };
  /** Waits for the first attempts of released submissions handed on (ADR 64). */
  return Object.assign(handle, { drain: received.drain });
}

/**
 * Which channels a handler of `submission.received` plans and first-attempts. Each has its own consumer group on
 * `ingest.submission` (ADR 54): `notifications.webhooks` for webhooks, `notifications.deliveries` for emails, so a
 * webhook (one POST) never waits for mails being rendered or for a slow SMTP server, nor for the rest of their batch.
 */
export type Channels = { emails: boolean; webhooks: boolean };
export const BOTH_CHANNELS: Channels = { emails: true, webhooks: true };

/** First attempts in the order they are started: webhooks (one POST) before emails (rendering, SMTP). */
export function cheapFirst(deliveries: Delivery[]): Delivery[] {
  const cost = (d: Delivery) => (d.channel === 'webhook' ? 0 : 1);
  return [...deliveries].sort((a, b) => cost(a) - cost(b));
}

/** Forms of one batch planned at once. */
const FORM_CONCURRENCY = 8;
/**
 * First attempts (mails, webhooks) in flight at once per handler, from claim to recorded outcome, across the batches
 * it is given at once (the Kafka subscription consumes several partitions concurrently): above the SMTP pool's
 * default size (40), since a batch's attempt keeps its place while its outcome waits for the next group commit, so
 * that no connection idles (ADR 63). Also the bound on what a crash of the instance can duplicate
 * (docs/notifications.md).
 */
export const ATTEMPT_CONCURRENCY = 48;
/**
 * Claimed first attempts a handler may have handed on unsent (ADR 64) before it waits to claim more: about two
 * seconds of P12's mails. After a crash, these wait for the lease (`ATTEMPT_LEASE_MS`) instead of being sent again.
 */
export const SEND_BACKLOG = 400;

type Received = { data: SubmissionReceived['data']; occurredAt: string };

/**
 * `ingest.submission` → plans the deliveries of each submission that is not held, of the `channels` given: emails
 * when it is not spam and the form has notifications on; a webhook to each enabled endpoint subscribed to
 * `submission.created` (or `submission.spam` for spam). Makes their first attempt right away, webhooks first. Each
 * channel's group keeps the submission's copy that its retries compose from (`saveSubmissions` is idempotent), and
 * publishes the outcomes of its own deliveries only. Idempotent: a redelivered submission finds
 * the deliveries it planned (deterministic ids), attempts only those never claimed, and publishes again the
 * outcome of every final one. A temporary send failure is an outcome (`retrying`), never an exception: only a
 * store or bus outage throws, and the bus retries that without limit.
 *
 * Throughput (P12): the store is called per batch, not per submission or delivery: one `saveSubmissions`, then the
 * batch's first attempts (forms without autoresponse) through `runner.firstAttempts` (ADR 61: the batch record and
 * the claims in two calls, the sends concurrently, outcomes in group commits, one publication, the batch closed;
 * only a failed attempt writes its delivery on its own). The handler returns once the claims are durable, and the
 * sends go on beside the next batches (ADR 64), at most `SEND_BACKLOG` deliveries of them: `drain` waits for them. A form's view, its endpoints
 * and its organization's verified addresses are read once per batch, and its first attempts use them. A form with
 * autoresponse on is planned one submission after the other in log order (the limits count what was planned before).
 */
export function createSubmissionReceivedHandler(deps: HandlerDeps, channels: Channels = BOTH_CHANNELS) {
  const { store, runner } = deps;
  const attempts = pLimit(ATTEMPT_CONCURRENCY);
  const backlog = createSendBacklog(SEND_BACKLOG, deps.logger);
  const handle = async (batch: BusMessage[]) => {
    const byForm = new Map<string, Received[]>();
    for (const m of batch) {
      const { data, occurredAt } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.held) continue;
      byForm.set(data.formId, [...(byForm.get(data.formId) ?? []), { data, occurredAt }]);
    }
    if (byForm.size === 0) return;
    // Read once per batch: an address verified meanwhile counts from the next batch on.
    const verified = new Map<string, Promise<string[]>>();
    const planDeps: HandlerDeps = {
      ...deps,
      recipients: {
        listVerified: (orgId) => {
          if (!verified.has(orgId)) verified.set(orgId, deps.recipients.listVerified(orgId));
          return verified.get(orgId) as Promise<string[]>;
        },
      },
    };
    /** Per submission: what it wants planned, whether its copy is kept, and whether it plans on its own. */
    type Wanted = { data: SubmissionReceived['data']; wanted: Delivery[]; keep: boolean };
    /** Per planned delivery: the form, copy and endpoints its first attempt would otherwise read again. */
    const known = new Map<string, AttemptContext>();
    const remember = (form: FormView, endpoints: WebhookEndpoint[], w: Wanted) => {
      for (const d of w.wanted) known.set(d.id, { form, submission: w.data, endpoints });
      return w;
    };
    const together: Wanted[] = [];
    const inOrder: { form: FormView; endpoints: WebhookEndpoint[]; received: Received[] }[] = [];
    const want = async (form: FormView, endpoints: WebhookEndpoint[], { data, occurredAt }: Received) => {
      if (form.orgId !== data.orgId) return null;
      const spam = data.spam.isSpam;
      const mails = channels.emails && !spam && form.notifications.enabled;
      const emails = mails ? await deliveriesFor(planDeps, form, data) : [];
      const type = spam ? 'submission.spam' : 'submission.created';
      const event = { type, occurredAt, receivedAt: data.receivedAt } as const;
      const cause = data.submissionId;
      const hooks = channels.webhooks
        ? webhookDeliveriesFor(deps, { form, submissionId: cause, cause, event, endpoints })
        : [];
      // A later mark as spam is sent from this copy: keep it when an endpoint may want one.
      const spamLater = channels.webhooks && !spam && subscribers(endpoints, 'submission.spam').length > 0;
      const wanted = [...emails, ...hooks];
      return remember(form, endpoints, { data, wanted, keep: wanted.length > 0 || spamLater });
    };
    await mapLimit([...byForm.entries()], FORM_CONCURRENCY, async ([formId, received]) => {
      const form = await store.getForm(formId);
      if (form === null) throw new FormNotYetKnownError(formId);
      if (form === 'deleted') return;
      const version = acceptedUnder(received);
      if (form.version < version) throw new FormNotYetKnownError(formId, version);
      const endpoints = channels.webhooks ? await deps.endpoints.listByForm({ orgId: form.orgId }, form.id) : [];
      if (channels.emails && form.notifications.enabled && form.notifications.autoresponse.enabled) {
        inOrder.push({ form, endpoints, received });
        return;
      }
      for (const item of received) {
        const w = await want(form, endpoints, item);
        if (w) together.push(w);
      }
    });
    // The copies first (a retry composes from them), in one call; then the first attempts of every form without
    // autoresponse as one batch (ADR 61: the store is called per batch, not per delivery).
    await store.saveSubmissions(together.filter((w) => w.keep).map((w) => w.data));
    // The sends go on after this handler returns (ADR 64): the batch record finds what a crash leaves unsent.
    await backlog.room();
    const { claimed, sent } = await runner.firstAttempts(cheapFirst(together.flatMap((w) => w.wanted)), {
      known: (id) => known.get(id),
      limit: attempts,
    });
    backlog.add(claimed, sent);
    // Autoresponse forms: each submission planned after the one before it, as the limits require, and attempted
    // one delivery at a time (`attempt`).
    const fresh: Delivery[] = [];
    const found: Delivery[] = [];
    await mapLimit(inOrder, FORM_CONCURRENCY, async ({ form, endpoints, received }) => {
      for (const item of received) {
        const w = await want(form, endpoints, item);
        if (!w?.keep) continue;
        await store.saveSubmission(w.data);
        if (w.wanted.length === 0) continue;
        for (const d of await store.planDeliveries(w.wanted)) (d.lastClaimed === 0 ? fresh : found).push(d);
      }
    });
    if (fresh.length === 0 && found.length === 0) return;
    const attempted = await Promise.all(
      cheapFirst(fresh).map((d) => attempts(() => runner.attempt(d, known.get(d.id)))),
    );
    // What to publish: each first attempt's delivery as it recorded it, and the deliveries planned before (a
    // redelivered batch) as they were found. An attempt held by another instance (null) is published by that
    // instance, or by the retry worker.
    await runner.publishOutcomes([...found, ...attempted.filter((d): d is Delivery => d !== null)]);
  };
  /** Waits for the first attempts handed on (on stop, and in tests that call the handler directly). */
  return Object.assign(handle, { drain: backlog.drain });
}
