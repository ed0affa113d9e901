import type { Consumer, EachBatchPayload } from 'kafkajs';
import { DeliveryAborted, type DeliveryContext, type DeliveryHooks, deliver, reportThrough } from '../delivery.ts';
import {
  type BatchHandler,
  type BusMessage,
  DEFAULT_RETRY,
  type EventPublisher,
  type RetryPolicy,
  type SubscribeOptions,
  type Subscription,
} from '../event-bus.ts';
import type { BusMetrics } from '../metrics.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import type { Topics } from './admin.ts';
import type { OnError } from './client.ts';
import { type ConsumerFactory, type ConsumerState, HEARTBEAT_MS, relauncher, startConsumer } from './consumer.ts';
import type { GroupStart } from './group-start.ts';
import { toBusMessage } from './messages.ts';
import type { Namespace } from './namespace.ts';

const JOIN_TIMEOUT_MS = 30_000;
const REVOKED = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

export interface SubscribeDeps extends Pick<DeliveryHooks, 'onDeadLetter' | 'storeHealthy'> {
  topics: Topics;
  names: Namespace;
  groupStart: GroupStart;
  newConsumer: ConsumerFactory;
  /** Publishes to logical topics (a dead letter goes to `<logical topic>.dlq`). */
  dlq: EventPublisher;
  registry: SubscriptionRegistry;
  onError: OnError;
  metrics: BusMetrics;
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
  /** Logical names: metric labels, dead letters and `BusMessage.topic`. */
  group: string;
  topic: string;
  metrics: BusMetrics;
  /** Partitions whose lag this member reported (forgotten when a rebalance takes them away). */
  lagReported: Set<number>;
  handler: BatchHandler;
  maxBatchSize: number;
  state: MemberState;
  context: (signal: AbortSignal) => DeliveryContext;
  /**
   * Per partition, the first offset to deliver (`fromBeginning: false`, a partition the group has no offset for and
   * whose start could not be committed for the group); earlier ones are skipped.
   */
  startAt: Map<number, bigint>;
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
function eachBatchOf({
  group,
  topic,
  metrics,
  lagReported,
  handler,
  maxBatchSize,
  state,
  context,
  startAt,
}: BatchLoop) {
  return async ({ batch, heartbeat, isRunning, isStale, ...payload }: EachBatchPayload) => {
    // Lag from what the fetch already told: the partition's high-water mark − the next offset to process.
    const highWatermark = BigInt(batch.highWatermark);
    const reportLag = (next: bigint) => {
      const lag = highWatermark - next;
      lagReported.add(batch.partition);
      metrics.setLag(group, topic, batch.partition, lag > 0n ? Number(lag) : 0);
    };
    const commitThrough = async (last: string) => {
      const next = BigInt(last) + 1n;
      const partitions = [{ partition: batch.partition, offset: String(next) }];
      await payload.commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions }] });
      payload.resolveOffset(last);
      state.crashes = 0;
      reportLag(next);
    };
    if (batch.messages.length > 0) reportLag(BigInt(batch.firstOffset() ?? batch.lastOffset()));
    const from = startAt.get(batch.partition) ?? -1n;
    const messages = batch.messages.filter((m) => BigInt(m.offset) >= from).map((m) => toBusMessage(batch, m, topic));
    if (messages.length === 0) return commitThrough(batch.lastOffset());
    for (let i = 0; i < messages.length; i += maxBatchSize) {
      if (i > 0 && (!isRunning() || isStale() || state.revoked)) return;
      const chunk = messages.slice(i, i + maxBatchSize);
      metrics.observeBatch(topic, chunk.length);
      const alive = keepAlive(heartbeat, state);
      try {
        await deliver(chunk, handler, context(alive.signal));
      } catch (err) {
        if (err instanceof DeliveryAborted) return;
        throw err;
      } finally {
        alive.end();
      }
      await commitThrough((chunk.at(-1) as BusMessage).offset);
      await heartbeat();
    }
  };
}

/**
 * Marks a new generation (the assignment is no longer revoked) and reports a consumer that has not joined its
 * group within `JOIN_TIMEOUT_MS`. Returns what cancels the report.
 */
function watchJoin(
  consumer: Consumer,
  state: MemberState,
  report: (err: Error) => void,
  onAssignment: (partitions: number[]) => void,
) {
  const timeout = setTimeout(() => report(new Error(`no group join within ${JOIN_TIMEOUT_MS} ms`)), JOIN_TIMEOUT_MS);
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    state.revoked = false;
    clearTimeout(timeout);
    onAssignment(Object.values(event.payload.memberAssignment).flat());
  });
  return () => clearTimeout(timeout);
}

function deliveryContext(deps: SubscribeDeps, { group, topic }: SubscribeOptions, policy: RetryPolicy) {
  return (signal: AbortSignal): DeliveryContext => ({
    group,
    policy,
    dlq: deps.dlq,
    signal,
    ...reportThrough(deps, group, topic, deps.metrics),
  });
}

/**
 * Subscribes without waiting for the group join: a restarted instance would otherwise wait out its dead
 * predecessor's session. For `fromBeginning: false`, the log end of every partition the group has no offset for is
 * read now and committed as the group's start (`group-start.ts`), so every record published after `subscribe()`
 * resolved is delivered however late the join completes, by whichever member is handed the partition. Where the
 * group already has members that never committed a partition, this instance skips what precedes its own start.
 */
export function createSubscribe(deps: SubscribeDeps) {
  return async (options: SubscribeOptions): Promise<Subscription> => {
    const { group, topic, handler, fromBeginning = true, maxBatchSize = 500, retry } = options;
    const [physical, groupId] = [deps.names.topic(topic), deps.names.group(group)];
    await deps.topics.require(physical);
    // Also the check that Kafka answers: the consumer's own connection retries without limit.
    const ends = await deps.topics.uncommittedEnds(groupId, physical);
    const starts = new Map(fromBeginning ? [] : ends);
    const startAt =
      starts.size === 0 ? new Map<number, bigint>() : await deps.groupStart.pin(groupId, physical, starts);
    const state: MemberState = { crashes: 0, stopping: false, revoked: false, deliveries: new Set() };
    const consumer = deps.newConsumer(groupId, state, { gatherMs: options.gatherMs });
    const context = deliveryContext(deps, options, retry ?? DEFAULT_RETRY);
    const report = (err: unknown) => deps.onError(err, `consumer ${group} on ${topic}`);
    await startConsumer(consumer, physical, true);
    const lagReported = new Set<number>();
    // A partition a rebalance gave to another member: its lag is that member's to report now.
    const stopWatching = watchJoin(consumer, state, report, (assigned) => {
      for (const p of lagReported) {
        if (assigned.includes(p)) continue;
        lagReported.delete(p);
        deps.metrics.forgetLag(group, topic, p);
      }
    });
    const run = () =>
      consumer
        .run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: 4,
          eachBatch: eachBatchOf({
            group,
            topic,
            metrics: deps.metrics,
            lagReported,
            handler,
            maxBatchSize,
            state,
            context,
            startAt,
          }),
        })
        .catch(report);
    void run();
    // After a crash kafkajs leaves stopped (`consumer.ts`): the same consumer connects, subscribes and runs again.
    state.relaunch = relauncher(consumer, physical, state, run);
    return deps.registry.track(async () => {
      stopWatching();
      state.stopping = true;
      for (const delivery of state.deliveries) delivery.abort();
      await consumer.disconnect();
      for (const p of lagReported) deps.metrics.forgetLag(group, topic, p);
    });
  };
}
