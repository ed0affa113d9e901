import { type BusMessage, ERASED_HEADER, type EventBus, type LogPositions, type Replay } from '@formgate/bus';
import { decodeEvent, type LiveEventType, Topics } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import { buildStandardBody } from '../channels/webhook/webhook-body.ts';
import { toSubmissionDto } from '../channels/webhook/webhook-channel.ts';
import type { FormView, NotificationStores } from '../store/index.ts';
import type { StreamCursor } from './stream-cursor.ts';

/** One event of a stream: `data` is the JSON text sent as the SSE `data:` line. */
export interface LiveEvent {
  type: LiveEventType;
  data: string;
}

export interface LiveFeedDeps {
  bus: Pick<EventBus, 'replay'>;
  stores: Pick<NotificationStores, 'views'>;
  logger: Logger;
  /** How long a submission waits for its form in the view (`forms.form` may lag `ingest.submission`). */
  formWaitMs?: number;
}

export interface FollowOptions {
  orgId: string;
  formId?: string;
  /** Where to resume (a `Last-Event-ID`); absent: from now. */
  from?: StreamCursor;
  /** Called in log order per partition, one at a time, with the cursor just past the event. */
  onEvent: (event: LiveEvent, cursor: StreamCursor) => void;
}

const FOLLOWED = [Topics.ingestSubmission, Topics.notificationsDelivery] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An organization's new submissions and delivery outcomes, followed live: each stream reads `ingest.submission` and
 * `notifications.delivery` with `replay({ from })` — from the log end, or from a cursor — and joins no consumer
 * group, so it neither takes partitions from the service's groups nor commits anything (ADR 98). A submission's
 * event is its Standard Webhooks body (`buildStandardBody`), exactly what its webhooks carry.
 */
export function createLiveFeed(deps: LiveFeedDeps) {
  const formOf = async (orgId: string, formId: string): Promise<FormView | null> => {
    const deadline = Date.now() + (deps.formWaitMs ?? 3_000);
    for (;;) {
      const form = await deps.stores.views.getForm({ orgId }, formId);
      if (form || Date.now() > deadline) return form;
      await sleep(100);
    }
  };

  async function toEvent(o: FollowOptions, m: BusMessage): Promise<LiveEvent | null> {
    if (m.headers[ERASED_HEADER] !== undefined) return null;
    if (m.topic === Topics.ingestSubmission) {
      const { data, occurredAt } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.orgId !== o.orgId || data.held || (o.formId && data.formId !== o.formId)) return null;
      const form = await formOf(o.orgId, data.formId);
      const type = data.spam.isSpam ? 'submission.spam' : 'submission.created';
      const submission = toSubmissionDto(data, data.spam.isSpam);
      const formRef = { id: data.formId, name: form?.name ?? '' };
      return { type, data: buildStandardBody({ type, occurredAt, form: formRef, submission }) };
    }
    const event = decodeEvent(Topics.notificationsDelivery, m.value);
    if (event.type !== 'delivery.succeeded' && event.type !== 'delivery.failed') return null;
    if (event.data.orgId !== o.orgId || (o.formId && event.data.formId !== o.formId)) return null;
    return { type: event.type, data: JSON.stringify({ type: event.type, timestamp: event.data.at, data: event.data }) };
  }

  /** Follows both topics for one stream; `stop()` ends it. Rejects when the log cannot be read. */
  async function follow(o: FollowOptions): Promise<{ stop: () => Promise<void> }> {
    const cursor: Record<string, Record<number, string>> = {};
    // Nothing is handled before every topic's start is in the cursor: each event's cursor names every partition.
    let opened: () => void = () => {};
    let queue = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let stopped = false;
    const handle = async (m: BusMessage) => {
      const at = cursor[m.topic] ?? {};
      if (stopped || BigInt(m.offset) < BigInt(at[m.partition] ?? '0')) return;
      const event = await toEvent(o, m).catch((err: unknown) => {
        deps.logger.warn({ err, topic: m.topic, offset: m.offset }, 'event stream skipped a record');
        return null;
      });
      cursor[m.topic] = { ...at, [m.partition]: String(BigInt(m.offset) + 1n) };
      if (event && !stopped) o.onEvent(event, structuredClone(cursor));
    };
    const enqueue = (m: BusMessage) => {
      queue = queue.then(() => handle(m));
    };
    const replays: Replay[] = [];
    const stop = async () => {
      stopped = true;
      await Promise.all(replays.map((r) => r.stop()));
    };
    try {
      for (const topic of FOLLOWED) {
        const from: LogPositions | 'end' = o.from?.[topic] ?? 'end';
        const replay = await deps.bus.replay(topic, enqueue, { from });
        replays.push(replay);
        cursor[topic] = { ...replay.start, ...cursor[topic] };
      }
    } catch (err) {
      await stop();
      throw err;
    }
    opened();
    return { stop };
  }

  return { follow };
}
