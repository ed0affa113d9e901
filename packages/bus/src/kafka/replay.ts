import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { type BusMessage, BusUnavailableError, type Subscription } from '../event-bus.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import type { Topics } from './admin.ts';
import type { OnError } from './client.ts';
import { type ConsumerFactory, type ConsumerState, relauncher, startConsumer } from './consumer.ts';
import { toBusMessage } from './messages.ts';
import type { Namespace } from './namespace.ts';

export interface ReplayDeps {
  topics: Topics;
  names: Namespace;
  newConsumer: ConsumerFactory;
  registry: SubscriptionRegistry;
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

/** Reads a topic from its first retained record in a throwaway group that commits nothing, and keeps following. */
export function createReplay(deps: ReplayDeps) {
  return async (topic: string, onMessage: (message: BusMessage) => void): Promise<Subscription> => {
    const physical = deps.names.topic(topic);
    await deps.topics.require(physical);
    const pending = new Map<number, bigint>();
    for (const o of await deps.topics.offsets(physical)) {
      if (BigInt(o.high) > BigInt(o.low)) pending.set(o.partition, BigInt(o.high));
    }
    const groupId = deps.names.group(`replay.${topic}.${randomUUID()}`);
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
    return deps.registry.track(stop);
  };
}
