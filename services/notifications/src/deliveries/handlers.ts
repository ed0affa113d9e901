import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { DeliveryStore } from './delivery-store.ts';
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

/** `forms.submission` → a submission deleted through the API is forgotten here too (its delivery log stays). */
export function createSubmissionChangesHandler(deps: { store: DeliveryStore }) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      if (event.type === 'submission.deleted') await deps.store.deleteSubmission(event.data.submissionId);
    }
  };
}

/**
 * Forms of one batch handled at once. A form's submissions go one after the other, in log order: the autoresponse
 * limits count what was planned before.
 */
const CONCURRENCY = 8;

/**
 * `ingest.submission` → plans the deliveries of each submission that is neither spam nor held, of a form with
 * notifications on, and makes their first attempt right away. Idempotent: a redelivered submission finds the
 * deliveries it planned (deterministic ids), attempts only those never claimed, and publishes again the outcome
 * of every final one. A temporary send failure is an outcome (`retrying`), never an exception: only a store or
 * bus outage throws, and the bus retries that without limit.
 */
export function createSubmissionReceivedHandler(deps: PlanDeps & { runner: DeliveryRunner; logger: Logger }) {
  const { store, runner } = deps;
  const handle = async (m: BusMessage) => {
    const { data } = decodeEvent(Topics.ingestSubmission, m.value);
    if (data.spam.isSpam || data.held) return;
    const form = await store.getForm(data.formId);
    if (form === null) throw new FormNotYetKnownError(data.formId);
    if (form === 'deleted' || form.orgId !== data.orgId || !form.notifications.enabled) return;
    const wanted = await deliveriesFor(deps, form, data);
    if (wanted.length === 0) return;
    await store.saveSubmission(data);
    const planned = await store.planDeliveries(wanted);
    await Promise.all(planned.filter((d) => d.lastClaimed === 0).map((d) => runner.attempt(d)));
    await runner.publishOutcomes(await store.listBySubmission(data.submissionId));
  };
  return async (batch: BusMessage[]) => {
    const byForm = new Map<string, BusMessage[]>();
    for (const m of batch) byForm.set(m.key, [...(byForm.get(m.key) ?? []), m]);
    await mapLimit([...byForm.values()], CONCURRENCY, async (messages) => {
      for (const m of messages) await handle(m);
    });
  };
}
