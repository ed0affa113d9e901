import { classifyFailure, dlqTopic, type FailureClass } from '@formgate/contracts';
import { deadLetterRecord } from './dead-letter.ts';
import {
  type BatchHandler,
  type BusMessage,
  ERASED_HEADER,
  type EventPublisher,
  type RetryPolicy,
} from './event-bus.ts';
import { type BusMetrics, NO_BUS_METRICS } from './metrics.ts';

/** How often a partition held by a transient failure is reported while it keeps waiting. */
export const TRANSIENT_REPORT_EVERY_MS = 5_000;

export interface TransientWait {
  /** Consecutive transient failures so far. */
  attempts: number;
  /** Since the first of them. */
  waitingMs: number;
}

/** A record moved to `<topic>.dlq`, as reported to `onDeadLetter`. */
export interface DeadLetterReport {
  group: string;
  topic: string;
  partition: number;
  offset: string;
  failure: Exclude<FailureClass, 'transient'>;
}

/**
 * What a bus's subscriptions report to and ask of their process (both adapters' options extend it): failures,
 * dead letters, and whether the stores the handlers write to answer.
 */
export interface DeliveryHooks {
  onError?: (err: unknown, context: string) => void;
  /**
   * A record went to its dead-letter topic: data the log acknowledged left the pipeline, an incident (hosts log it
   * at error level). Default: reported through `onError`. Counted in `formgate_dead_letters_total` either way.
   */
  onDeadLetter?: (err: unknown, letter: DeadLetterReport) => void;
  /**
   * A real round trip to the stores the handlers depend on (`StoreHealth.healthy`). A record failing for an unknown
   * reason is dead-lettered only while this answers true: while a store is sick the failure is transient (the
   * partition waits), however the driver worded it. Without it, unknown failures are judged by their count alone.
   */
  storeHealthy?: (options?: { fresh?: boolean }) => Promise<boolean>;
}

export interface DeliveryContext {
  group: string;
  policy: RetryPolicy;
  dlq: EventPublisher;
  /** Aborted when the subscription stops or loses the partition: waiting ends at once and nothing is committed. */
  signal: AbortSignal;
  onDeadLetter?: (message: BusMessage, error: unknown, failure: DeadLetterReport['failure']) => void;
  /** Called on the first transient failure of a wait and then at most every `TRANSIENT_REPORT_EVERY_MS`. */
  onTransient?: (error: unknown, wait: TransientWait) => void;
  storeHealthy?: DeliveryHooks['storeHealthy'];
}

export class DeliveryAborted extends Error {}

/**
 * The hooks of a subscription's `DeliveryContext`: dead letters reported through `onDeadLetter` (else `onError`)
 * and counted in `formgate_dead_letters_total`, transient waits through `onError`, the stores' health passed on.
 */
export function reportThrough(
  hooks: DeliveryHooks,
  group: string,
  topic: string,
  metrics: BusMetrics = NO_BUS_METRICS,
): Pick<DeliveryContext, 'onDeadLetter' | 'onTransient' | 'storeHealthy'> {
  const onError = hooks.onError ?? (() => {});
  return {
    onDeadLetter: (m, e, failure) => {
      metrics.deadLettered(group, topic);
      const letter: DeadLetterReport = { group, topic, partition: m.partition, offset: m.offset, failure };
      if (hooks.onDeadLetter) hooks.onDeadLetter(e, letter);
      else onError(e, `dead-lettered ${topic}/${m.partition}@${m.offset} (${failure} failure)`);
    },
    onTransient: (e, { attempts, waitingMs }) =>
      onError(
        e,
        `consumer ${group} on ${topic}: transient failure, partition waiting (${attempts} tries, ${Math.round(waitingMs / 1000)} s)`,
      ),
    ...(hooks.storeHealthy ? { storeHealthy: hooks.storeHealthy } : {}),
  };
}

type Outcome = { error: unknown; failure: Exclude<FailureClass, 'transient'> } | undefined;

/** Resolves after `ms` or as soon as `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });

const backoff = (policy: RetryPolicy, failures: number) =>
  Math.min(policy.initialDelayMs * 2 ** (failures - 1), policy.maxDelayMs);

/** Capped exponential backoff with jitter: half the delay is fixed, half random, so waiting members spread out. */
const jittered = (delay: number) => delay / 2 + (Math.random() * delay) / 2;

/** Counts a stretch of transient failures and reports it through `onTransient` without flooding. */
function transientTracker(ctx: DeliveryContext) {
  let attempts = 0;
  let since = 0;
  let reportedAt = Number.NEGATIVE_INFINITY;
  return {
    failed(error: unknown) {
      const now = Date.now();
      if (attempts++ === 0) since = now;
      if (now - reportedAt < TRANSIENT_REPORT_EVERY_MS) return attempts;
      reportedAt = now;
      ctx.onTransient?.(error, { attempts, waitingMs: now - since });
      return attempts;
    },
    reset: () => {
      attempts = 0;
    },
  };
}

type Tracker = ReturnType<typeof transientTracker>;

async function waitBeforeRetry(ms: number, signal: AbortSignal) {
  if (signal.aborted) throw new DeliveryAborted('stopping');
  await pause(ms, signal);
  if (signal.aborted) throw new DeliveryAborted('stopping');
}

/**
 * `classifyFailure`, with an unknown failure made transient while a real round trip says a store is sick. The
 * failure that would spend the last attempt (and dead-letter) asks for a round trip made after it, not a cached one.
 */
async function judge(error: unknown, ctx: DeliveryContext, last: boolean): Promise<FailureClass> {
  const failure = classifyFailure(error);
  if (failure !== 'unknown' || !ctx.storeHealthy) return failure;
  const healthy = await ctx.storeHealthy({ fresh: last }).catch(() => false);
  return healthy ? 'unknown' : 'transient';
}

/**
 * Runs `run` until it succeeds (undefined), fails permanently, or fails `attempts` times for unknown reasons while
 * the stores answer. Transient failures, and unknown ones while a store is sick, are retried without limit and do
 * not count as attempts.
 */
async function settle(
  run: () => Promise<void>,
  ctx: DeliveryContext,
  transient: Tracker,
  attempts = ctx.policy.attempts,
): Promise<Outcome> {
  let unknownFailures = 0;
  for (;;) {
    try {
      await run();
      transient.reset();
      return undefined;
    } catch (error) {
      const failure = await judge(error, ctx, unknownFailures + 1 >= attempts);
      if (failure === 'permanent') return { error, failure };
      if (failure === 'transient') {
        // Only failures in a row with the stores answering count: an outage starts the count again.
        unknownFailures = 0;
        await waitBeforeRetry(jittered(backoff(ctx.policy, transient.failed(error))), ctx.signal);
        continue;
      }
      if (++unknownFailures >= attempts) return { error, failure };
      await waitBeforeRetry(backoff(ctx.policy, unknownFailures), ctx.signal);
    }
  }
}

/** Appends `message` to its `.dlq`, waiting out an unavailable bus like any transient failure. */
async function deadLetter(
  message: BusMessage,
  outcome: NonNullable<Outcome>,
  ctx: DeliveryContext,
  transient: Tracker,
) {
  const record = deadLetterRecord(message, outcome.error, outcome.failure, ctx.group);
  for (;;) {
    try {
      await ctx.dlq.publish(dlqTopic(message.topic), [record]);
      break;
    } catch (error) {
      if (classifyFailure(error) !== 'transient') throw error;
      await waitBeforeRetry(jittered(backoff(ctx.policy, transient.failed(error))), ctx.signal);
    }
  }
  transient.reset();
  ctx.onDeadLetter?.(message, outcome.error, outcome.failure);
}

/**
 * `batch` failed (not transiently): finds the messages that fail alone by halving it, in order. A half of several
 * messages is tried once (the whole batch already had its attempts; a transient failure still waits), a failing
 * half is halved again, and a single message gets the full policy before it is dead-lettered. One poison pill in a
 * batch of n costs about 2·log2(n) handler calls, not n: the messages behind it are not held up for long.
 */
async function isolate(batch: BusMessage[], handler: BatchHandler, ctx: DeliveryContext, transient: Tracker) {
  const middle = Math.ceil(batch.length / 2);
  for (const half of [batch.slice(0, middle), batch.slice(middle)]) {
    const [only] = half;
    if (only === undefined) continue;
    if (half.length === 1) {
      const outcome = await settle(() => handler(half), ctx, transient);
      if (outcome !== undefined) await deadLetter(only, outcome, ctx, transient);
    } else if ((await settle(() => handler(half), ctx, transient, 1)) !== undefined) {
      await isolate(half, handler, ctx, transient);
    }
  }
}

/**
 * Runs `handler` on `batch`, deciding by `classifyFailure`: a transient failure is retried without limit (the
 * partition waits), an unknown one `policy.attempts` times. If the batch still fails, the failing messages are
 * isolated by halving it (`isolate`), and the ones that fail alone permanently, or unknown-ly `policy.attempts`
 * times, go to the dead-letter topic. Resolves when every message is handled or dead-lettered (then the caller
 * commits); throws `DeliveryAborted` when `signal` aborts mid-way (nothing committed).
 */
export async function deliver(all: BusMessage[], handler: BatchHandler, ctx: DeliveryContext): Promise<void> {
  // Erased records (`EventBus.eraseRecords`) hold nothing: skipped, and committed with the rest.
  const batch = all.some((m) => m.headers[ERASED_HEADER] !== undefined)
    ? all.filter((m) => m.headers[ERASED_HEADER] === undefined)
    : all;
  if (batch.length === 0) return;
  const transient = transientTracker(ctx);
  const batchOutcome = await settle(() => handler(batch), ctx, transient);
  if (batchOutcome === undefined) return;
  const [only] = batch;
  if (batch.length === 1 && only) await deadLetter(only, batchOutcome, ctx, transient);
  else await isolate(batch, handler, ctx, transient);
}

/** Stable partition for a key (FNV-1a); the embedded log's partitioner. */
export function partitionFor(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}
