import type { Consumer, EachBatchPayload } from 'kafkajs';
import { DeliveryAborted, type DeliveryContext, deliver, reportThrough } from '../delivery.ts';
import {
  type BatchHandler,
  type BusMessage,
  DEFAULT_RETRY,
  type EventPublisher,
  type RetryPolicy,
  type SubscribeOptions,
  type Subscription,
} from '../event-bus.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import type { Topics } from './admin.ts';
import type { OnError } from './client.ts';
import { type ConsumerFactory, type ConsumerState, HEARTBEAT_MS, startConsumer } from './consumer.ts';
import { toBusMessage } from './messages.ts';

const JOIN_TIMEOUT_MS = 30_000;
const REVOKED = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

export interface SubscribeDeps {
  topics: Topics;
  newConsumer: ConsumerFactory;
  dlq: EventPublisher;
  registry: SubscriptionRegistry;
  onError: OnError;
}

/**
 * A subscription's consumer state, whether its current assignment was revoked by a rebalance, and the deliveries in
 * progress (aborted on stop or revocation, so a transient wait ends at once).
 */
interface MemberState extends ConsumerState {
  revoked: boolean;
  deliveries: Set<AbortController>;
}

interface BatchLoop {
  handler: BatchHandler;
  maxBatchSize: number;
  state: MemberState;
  context: (signal: AbortSignal) => DeliveryContext;
}

/** Heartbeats every `HEARTBEAT_MS` while a chunk is delivered; a revoked assignment aborts the delivery. */
function keepAlive(heartbeat: () => Promise<void>, state: MemberState) {
  const delivery = new AbortController();
  state.deliveries.add(delivery);
  if (state.stopping || state.revoked) delivery.abort();
  const beat = setInterval(() => {
    heartbeat().catch((err) => {
      if (!REVOKED.has(err?.type)) return;
      state.revoked = true;
      delivery.abort();
    });
  }, HEARTBEAT_MS);
  return {
    signal: delivery.signal,
    end: () => {
      clearInterval(beat);
      state.deliveries.delete(delivery);
    },
  };
}

/**
 * Delivers a fetched batch in chunks of `maxBatchSize`, heartbeating while a chunk is handled, and commits each
 * chunk once `deliver()` handled or dead-lettered it. A revoked assignment or a stop leaves the rest uncommitted.
 */
function eachBatchOf({ handler, maxBatchSize, state, context }: BatchLoop) {
  return async ({ batch, heartbeat, isRunning, isStale, ...payload }: EachBatchPayload) => {
    const messages = batch.messages.map((m) => toBusMessage(batch, m));
    for (let i = 0; i < messages.length; i += maxBatchSize) {
      if (i > 0 && (!isRunning() || isStale() || state.revoked)) return;
      const chunk = messages.slice(i, i + maxBatchSize);
      const alive = keepAlive(heartbeat, state);
      try {
        await deliver(chunk, handler, context(alive.signal));
      } catch (err) {
        if (err instanceof DeliveryAborted) return;
        throw err;
      } finally {
        alive.end();
      }
      const last = (chunk.at(-1) as BusMessage).offset;
      const partitions = [{ partition: batch.partition, offset: String(BigInt(last) + 1n) }];
      await payload.commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions }] });
      payload.resolveOffset(last);
      state.crashes = 0;
      await heartbeat();
    }
  };
}

/**
 * Resolves once the consumer joined its group (for `fromBeginning: false`, once it also fetched, which pins a new
 * group's start at the log end), or after `JOIN_TIMEOUT_MS` with a report through `onError`.
 */
function joined(consumer: Consumer, state: MemberState, fromBeginning: boolean, report: (err: Error) => void) {
  return new Promise<void>((resolve) => {
    const timeout = setTimeout(() => {
      report(new Error(`no group join within ${JOIN_TIMEOUT_MS} ms`));
      resolve();
    }, JOIN_TIMEOUT_MS);
    const ready = () => {
      clearTimeout(timeout);
      resolve();
    };
    let member = false;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      state.revoked = false;
      member = true;
      if (fromBeginning) ready();
    });
    // A new group with fromBeginning=false takes the log end at its first fetch, not at the join.
    consumer.on(consumer.events.FETCH, () => member && ready());
  });
}

function deliveryContext(deps: SubscribeDeps, { group, topic }: SubscribeOptions, policy: RetryPolicy) {
  return (signal: AbortSignal): DeliveryContext => ({
    group,
    policy,
    dlq: deps.dlq,
    signal,
    ...reportThrough(deps.onError, group, topic),
  });
}

export function createSubscribe(deps: SubscribeDeps) {
  return async (options: SubscribeOptions): Promise<Subscription> => {
    const { group, topic, handler, fromBeginning = true, maxBatchSize = 500, retry } = options;
    await deps.topics.require(topic);
    const state: MemberState = { crashes: 0, stopping: false, revoked: false, deliveries: new Set() };
    const consumer = deps.newConsumer(group, state);
    const context = deliveryContext(deps, options, retry ?? DEFAULT_RETRY);
    await startConsumer(consumer, topic, fromBeginning);
    const join = joined(consumer, state, fromBeginning, (err) => deps.onError(err, `consumer ${group} on ${topic}`));
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: eachBatchOf({ handler, maxBatchSize, state, context }),
    });
    await join;
    return deps.registry.track(async () => {
      state.stopping = true;
      for (const delivery of state.deliveries) delivery.abort();
      await consumer.disconnect();
    });
  };
}
