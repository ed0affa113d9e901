import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import { type Logger, mapLimit } from '@formgate/kit';
import pLimit from 'p-limit';
import type {
  Delivery,
  NotificationStores,
  PlannedSubmission,
  StoredSubmission,
  VerifiedRecipients,
  WebhookEndpointStore,
} from '../store/index.ts';
import { ALL_CHANNEL_KINDS, type AttemptContext, cheapFirst, type DeliveryChannels } from './channel.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import { createSendBacklog } from './first-attempts/send-backlog.ts';
import type { PlanDeps } from './plan-deliveries.ts';
import { createSubmissionPlanning, type Received } from './plan-submission.ts';
import { DELIVERY_TUNING } from './tuning.ts';

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

export type HandlerDeps = Omit<PlanDeps, 'log'> & {
  stores: Pick<NotificationStores, 'log' | 'views' | 'gone'>;
  runner: DeliveryRunner;
  channels: DeliveryChannels;
  endpoints: WebhookEndpointStore;
  logger: Logger;
};

export { ALL_CHANNEL_KINDS };

/** The newest form version the submissions of one form were accepted under (0: none says). */
const acceptedUnder = (received: Received[]) => received.reduce((v, r) => Math.max(v, r.data.formVersion ?? 0), 0);

/** Reads an organization's verified addresses once per consumer batch. */
function cachedRecipients(recipients: VerifiedRecipients): VerifiedRecipients {
  const verified = new Map<string, Promise<string[]>>();
  return {
    listVerified(orgId) {
      if (!verified.has(orgId)) verified.set(orgId, recipients.listVerified(orgId));
      return verified.get(orgId) as Promise<string[]>;
    },
  };
}

/**
 * The submissions of `records` deleted before this consumer got to them (it was behind): only records older than
 * `DELIVERY_TUNING.goneCheckAfterMs` are looked up, all in one read; none such, no read.
 */
async function goneAmong(
  deps: Pick<HandlerDeps, 'stores' | 'clock'>,
  records: { message: BusMessage; received: Received }[],
): Promise<ReadonlySet<string>> {
  const now = deps.clock.now().getTime();
  const old = records.filter(({ message, received }) => {
    const occurred = Date.parse(received.occurredAt);
    const born = Number.isNaN(occurred) ? message.timestamp : Math.min(message.timestamp, occurred);
    return now - born >= DELIVERY_TUNING.goneCheckAfterMs;
  });
  if (old.length === 0) return NONE_GONE;
  return deps.stores.gone.listGone(old.map(({ received: { data } }) => data));
}
const NONE_GONE: ReadonlySet<string> = new Set();

/** The batch's submissions that are not held, by form, in log order, but those deleted meanwhile (`goneAmong`). */
async function receivedByForm(deps: Pick<HandlerDeps, 'stores' | 'clock' | 'logger'>, batch: BusMessage[]) {
  const records: { message: BusMessage; received: Received }[] = [];
  for (const message of batch) {
    const { data, occurredAt } = decodeEvent(Topics.ingestSubmission, message.value);
    if (!data.held) records.push({ message, received: { data, occurredAt } });
  }
  const gone = await goneAmong(deps, records);
  if (gone.size > 0) deps.logger.info({ skipped: gone.size }, 'deleted submissions skipped (the consumer was behind)');
  const byForm = new Map<string, Received[]>();
  for (const { received } of records) {
    if (gone.has(received.data.submissionId)) continue;
    byForm.set(received.data.formId, [...(byForm.get(received.data.formId) ?? []), received]);
  }
  return byForm;
}

/**
 * `ingest.submission` → the deliveries of each submission that is not held, of the channel `kinds` this consumer
 * group serves (`plan-submission.ts`), and their first attempts right away, cheapest first, as one batch
 * (`first-attempts/`). Idempotent: a redelivered submission finds the deliveries it planned (deterministic ids),
 * attempts none again, and publishes again the outcome of every final one. A failed send is an outcome, never an
 * exception: only a store or bus outage throws, and the bus retries that without limit.
 *
 * A submission of a no-store form has its planning by `kinds` recorded once its deliveries are
 * claimed, and is settled when every group planned it and its deliveries are done (`settle-submission.ts`).
 *
 * The handler returns once the claims are durable; the sends go on beside the next batches, at most
 * `DELIVERY_TUNING.sendBacklog` deliveries of them (`drain` waits for them). A form's view, endpoints and its
 * organization's verified addresses are read once per batch, and the first attempts use what was read.
 *
 * A submission deleted before the consumer got to it (erased, expired or deleted through the API while the consumer
 * was behind: its tombstone, `GoneSubmissions`) is skipped: nothing planned, no copy kept, nothing sent. Only records
 * older than `DELIVERY_TUNING.goneCheckAfterMs` are checked, with one read per batch (`goneAmong`).
 */
export function createSubmissionReceivedHandler(deps: HandlerDeps, kinds = ALL_CHANNEL_KINDS) {
  const { stores, runner } = deps;
  const inFlight = pLimit(DELIVERY_TUNING.firstAttemptsInFlight);
  const backlog = createSendBacklog(DELIVERY_TUNING.sendBacklog, deps.logger);
  const handle = async (batch: BusMessage[]) => {
    const byForm = await receivedByForm(deps, batch);
    if (byForm.size === 0) return;
    // Read once per batch: an address verified meanwhile counts from the next batch on.
    const planning = createSubmissionPlanning(
      { ...deps, log: stores.log, recipients: cachedRecipients(deps.recipients) },
      kinds,
    );
    const copies: StoredSubmission[] = [];
    const noStore: PlannedSubmission[] = [];
    const wanted: Delivery[] = [];
    const contexts = new Map<string, AttemptContext>();
    await mapLimit([...byForm.entries()], DELIVERY_TUNING.formsPlannedAtOnce, async ([formId, received]) => {
      // By id alone (a form not seen yet is waited for); submissions naming another organization are dropped below.
      const form = await stores.views.getFormUnscoped(formId);
      if (form === null) throw new FormNotYetKnownError(formId);
      if (form === 'deleted') return;
      const version = acceptedUnder(received);
      if (form.version < version) throw new FormNotYetKnownError(formId, version);
      const plan = await planning(form);
      // In log order: the autoresponse limits count the submissions before.
      for (const item of received.filter((r) => r.data.orgId === form.orgId)) {
        const planned = await plan(item);
        if (planned.keepCopy) copies.push(item.data);
        // Spam ones too: once their deliveries (`submission.spam` webhooks, if any) are done, only metadata stays.
        if (form.storeContent === false) {
          noStore.push({ submissionId: item.data.submissionId, orgId: form.orgId, formId });
        }
        for (const d of planned.wanted) contexts.set(d.id, planned.context);
        wanted.push(...planned.wanted);
      }
    });
    // The copies first (a retry composes from them), in one call; then every first attempt as one batch.
    await stores.views.saveSubmissions(copies);
    await backlog.room();
    const { claimed, sent } = await runner.firstAttempts(cheapFirst(deps.channels, wanted), {
      context: (id) => contexts.get(id),
      limit: inFlight,
    });
    backlog.add(claimed, sent);
    // Once its deliveries are in the log: a no-store submission is settled when every group's are done.
    await runner.settler.planned(noStore, kinds);
  };
  /** Waits for the first attempts handed on (on stop, and in tests that call the handler directly). */
  return Object.assign(handle, { drain: backlog.drain });
}
