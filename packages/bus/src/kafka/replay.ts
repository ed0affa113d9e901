import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import {
  type BusMessage,
  BusUnavailableError,
  type LogPositions,
  type Replay,
  type ReplayOptions,
} from '../event-bus.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import type { Topics } from './admin.ts';
import type { OnError } from './client.ts';
import { type ConsumerFactory, type ConsumerState, relauncher, startConsumer } from './consumer.ts';
import type { GroupStart } from './group-start.ts';
import { toBusMessage } from './messages.ts';
import type { Namespace } from './namespace.ts';

export interface ReplayDeps {
  topics: Topics;
  names: Namespace;
  newConsumer: ConsumerFactory;
  registry: SubscriptionRegistry;
  /** Commits where a replay that does not start at the beginning starts, before its throwaway group has a member. */
  groupStart: GroupStart;
  /** Deletes the throwaway consumer group of a replay. */
  deleteGroup: (groupId: string) => Promise<void>;
  onError: OnError;
}

/** Settles once every partition in `pending` was read up to its high watermark, or on a crash without restart. */
function caughtUpWith(consumer: Consumer, topic: string, pending: Map<number, bigint>) {
  let settle: (err?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : pending.size === 0 && resolve());
  });
  done.catch(() => {});
  settle();
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) settle(new BusUnavailableError(`replay of ${topic} failed`, { cause: payload.error }));
  });
  const reached = (partition: number, lastOffset: string) => {
    const target = pending.get(partition);
    if (target !== undefined && BigInt(lastOffset) + 1n >= target) {
      pending.delete(partition);
      settle();
    }
  };
  return { done, reached };
}

/** Where a replay starts on each partition (`ReplayOptions.from`), within the partition's retained records. */
function startOf(
  offsets: { partition: number; low: string; high: string }[],
  from: ReplayOptions['from'] = 'start',
): Map<number, bigint> {
  return new Map(
    offsets.map(({ partition, low, high }) => {
      if (from === 'start') return [partition, BigInt(low)];
      const wanted = from === 'end' ? undefined : (from as LogPositions)[partition];
      if (wanted === undefined || !/^\d+$/.test(wanted)) return [partition, BigInt(high)];
      const offset = BigInt(wanted);
      return [partition, offset < BigInt(low) ? BigInt(low) : offset > BigInt(high) ? BigInt(high) : offset];
    }),
  );
}

/**
 * Reads a topic in a throwaway group that commits nothing, from its start or from the start committed for that
 * group before it has a member (`GroupStart.pin`), and keeps following. A restart after a crash reads again from
 * that start; what was passed already is not passed again.
 */
export function createReplay(deps: ReplayDeps) {
  return async (topic: string, onMessage: (message: BusMessage) => void, options?: ReplayOptions): Promise<Replay> => {
    const physical = deps.names.topic(topic);
    await deps.topics.require(physical);
    const offsets = await deps.topics.offsets(physical);
    const start = startOf(offsets, options?.from);
    const pending = new Map<number, bigint>();
    for (const o of offsets) {
      if (BigInt(o.high) > (start.get(o.partition) ?? 0n)) pending.set(o.partition, BigInt(o.high));
    }
    const next = new Map(start);
    const groupId = deps.names.group(`replay.${topic}.${randomUUID()}`);
    if (options?.from !== undefined && options.from !== 'start') {
      const unpinned = await deps.groupStart.pin(groupId, physical, start);
      if (unpinned.size > 0) throw new BusUnavailableError(`cannot set where the replay of ${topic} starts`);
    }
    const state: ConsumerState = { crashes: 0, stopping: false };
    const consumer = deps.newConsumer(groupId, state);
    const stop = async () => {
      state.stopping = true;
      await consumer.disconnect();
      await deps.deleteGroup(groupId).catch(() => {});
    };
    const caughtUp = caughtUpWith(consumer, topic, pending);
    await startConsumer(consumer, physical, true);
    const run = () =>
      consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            if (BigInt(m.offset) < (next.get(batch.partition) ?? 0n)) continue;
            next.set(batch.partition, BigInt(m.offset) + 1n);
            try {
              onMessage(toBusMessage(batch, m, topic));
            } catch (err) {
              deps.onError(err, `replay of ${topic}/${batch.partition}@${m.offset}`);
            }
          }
          caughtUp.reached(batch.partition, batch.lastOffset());
        },
      });
    await run();
    // After a crash kafkajs leaves stopped (`consumer.ts`): read the topic again from its start and keep following.
    state.relaunch = relauncher(consumer, physical, state, () =>
      run().catch((err) => deps.onError(err, `replay of ${topic}`)),
    );
    await caughtUp.done.catch(async (err) => {
      await stop().catch(() => {});
      throw err;
    });
    const subscription = deps.registry.track(stop);
    return { stop: () => subscription.stop(), start: Object.fromEntries([...start].map(([p, o]) => [p, String(o)])) };
  };
}
