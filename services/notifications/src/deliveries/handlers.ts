import type { BusMessage } from '@formgate/bus';
import {
  decodeEvent,
  encodeEvent,
  type SubmissionReceived,
  type SubmissionReleased,
  Topics,
} from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import { subscribers, webhookDeliveriesFor } from '../endpoints/plan-webhook-deliveries.ts';
import type { WebhookEndpointStore } from '../endpoints/webhook-endpoint-store.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { Delivery, DeliveryStore } from './delivery-store.ts';
import { mapLimit } from './map-limit.ts';
import { deliveriesFor, type PlanDeps } from './plan-deliveries.ts';

/** The form of a submission is not in the view yet (`forms.form` lags): the bus retries, without limit. */
export class FormNotYetKnownError extends Error {
  readonly retryable = true;
  constructor(formId: string) {
    super(`form ${formId} is not in the notifications view yet`);
    this.name = 'FormNotYetKnownError';
  }
}

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
  await Promise.all(planned.filter((d) => d.lastClaimed === 0).map((d) => deps.runner.attempt(d)));
  const ids = new Set(wanted.map((d) => d.id));
  const after = await deps.store.listBySubmission(submissionId);
  await deps.runner.publishOutcomes(after.filter((d) => ids.has(d.id)));
}

/**
 * A released submission (issue 13) as the `submission.received` it would have been had it not been held: same
 * submission, so the same delivery ids, hence a redelivered release plans nothing new.
 */
function asReceived(m: BusMessage, event: SubmissionReleased): BusMessage {
  const { releasedAt: _r, ...data } = event.data;
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
 * `forms.submission` → a release is notified as a received submission that is not held (emails unless spam,
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
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      if (event.type === 'submission.released') {
        await received([asReceived(m, event)]);
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
}

/** Forms of one batch planned at once; first attempts (mails, webhooks) made at once across the batch. */
const FORM_CONCURRENCY = 8;
const ATTEMPT_CONCURRENCY = 16;

/**
 * `ingest.submission` → plans the deliveries of each submission that is not held: emails when it is not spam and
 * the form has notifications on; a webhook to each enabled endpoint subscribed to `submission.created` (or
 * `submission.spam` for spam). Makes their first attempt right away. Idempotent: a redelivered submission finds
 * the deliveries it planned (deterministic ids), attempts only those never claimed, and publishes again the
 * outcome of every final one. A temporary send failure is an outcome (`retrying`), never an exception: only a
 * store or bus outage throws, and the bus retries that without limit.
 *
 * Throughput (P12): a batch is planned first, then every first attempt of it is made concurrently. A form's view,
 * its endpoints and its organization's verified addresses are read once per batch; its submissions are planned
 * in log order only when its autoresponse is on (the limits count what was planned before), at once otherwise.
 */
export function createSubmissionReceivedHandler(deps: HandlerDeps) {
  const { store, runner } = deps;
  return async (batch: BusMessage[]) => {
    const byForm = new Map<string, { data: SubmissionReceived['data']; occurredAt: string }[]>();
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
    const planned: { submissionId: string; ids: Set<string>; fresh: Delivery[] }[] = [];
    await mapLimit([...byForm.entries()], FORM_CONCURRENCY, async ([formId, received]) => {
      const form = await store.getForm(formId);
      if (form === null) throw new FormNotYetKnownError(formId);
      if (form === 'deleted') return;
      const endpoints = await deps.endpoints.listByForm({ orgId: form.orgId }, form.id);
      const plan = async ({ data, occurredAt }: { data: SubmissionReceived['data']; occurredAt: string }) => {
        if (form.orgId !== data.orgId) return;
        const spam = data.spam.isSpam;
        const emails = !spam && form.notifications.enabled ? await deliveriesFor(planDeps, form, data) : [];
        const type = spam ? 'submission.spam' : 'submission.created';
        const event = { type, occurredAt, receivedAt: data.receivedAt } as const;
        const cause = data.submissionId;
        const hooks = webhookDeliveriesFor(deps, { form, submissionId: cause, cause, event, endpoints });
        // A later mark as spam is sent from this copy: keep it when an endpoint may want one.
        const spamLater = !spam && subscribers(endpoints, 'submission.spam').length > 0;
        const wanted = [...emails, ...hooks];
        if (wanted.length === 0 && !spamLater) return;
        await store.saveSubmission(data);
        if (wanted.length === 0) return;
        const stored = await store.planDeliveries(wanted);
        planned.push({
          submissionId: data.submissionId,
          ids: new Set(wanted.map((d) => d.id)),
          fresh: stored.filter((d) => d.lastClaimed === 0),
        });
      };
      if (form.notifications.enabled && form.notifications.autoresponse.enabled) {
        for (const item of received) await plan(item);
      } else await mapLimit(received, ATTEMPT_CONCURRENCY, plan);
    });
    await mapLimit(
      planned.flatMap((p) => p.fresh),
      ATTEMPT_CONCURRENCY,
      (d) => runner.attempt(d),
    );
    await mapLimit(planned, ATTEMPT_CONCURRENCY, async ({ submissionId, ids }) => {
      const after = await store.listBySubmission(submissionId);
      await runner.publishOutcomes(after.filter((d) => ids.has(d.id)));
    });
  };
}
