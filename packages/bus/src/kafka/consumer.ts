import type { Consumer, Kafka } from 'kafkajs';
import { BusUnavailableError } from '../event-bus.ts';
import { CONSUMER_RETRY, type OnError } from './client.ts';

export const HEARTBEAT_MS = 1_000;
/** How long a dead member holds its partitions before the group gives them to the others. */
const SESSION_TIMEOUT_MS = 10_000;
/** Longest pause before a crashed consumer restarts (then kafkajs waits up to `MAX_RETRY_MS` more). */
const MAX_RESTART_DELAY_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Per consumer: crashes since the last commit (for the restart backoff) and whether it is being stopped. */
export interface ConsumerState {
  crashes: number;
  stopping: boolean;
}

export interface ConsumerFactoryOptions {
  onError: OnError;
  /** Consecutive crashes (no commit in between) after which a consumer stops restarting. */
  maxRestarts: number;
}

export type ConsumerFactory = (groupId: string, state: ConsumerState) => Consumer;

/** kafkajs consumers with Formgate's session, fetch and restart settings, on a client with `CONSUMER_RETRY`. */
export function createConsumerFactory(kafka: Kafka, opts: ConsumerFactoryOptions): ConsumerFactory {
  return (groupId, state) => {
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_MS,
      rebalanceTimeout: 60_000,
      maxWaitTimeInMs: 1_000,
      allowAutoTopicCreation: false,
      retry: {
        ...CONSUMER_RETRY,
        restartOnFailure: async () => {
          const crashes = ++state.crashes;
          await sleep(Math.min(250 * 2 ** crashes, MAX_RESTART_DELAY_MS));
          return !state.stopping && crashes <= opts.maxRestarts;
        },
      },
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart && !state.stopping) opts.onError(payload.error, `consumer ${groupId} stopped consuming`);
    });
    return consumer;
  };
}

/** Connects and subscribes `consumer` to `topic`; a failure disconnects it and rejects with `BusUnavailableError`. */
export async function startConsumer(consumer: Consumer, topic: string, fromBeginning: boolean) {
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning });
  } catch (err) {
    await consumer.disconnect().catch(() => {});
    throw new BusUnavailableError(`cannot subscribe to ${topic}`, { cause: err });
  }
}
