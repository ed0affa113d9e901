import type { Consumer, Kafka } from 'kafkajs';
import { BusUnavailableError } from '../event-bus.ts';
import { CONSUMER_RETRY, type OnError } from './client.ts';

export const HEARTBEAT_MS = 1_000;
/** How long a dead member holds its partitions before the group gives them to the others. */
const SESSION_TIMEOUT_MS = 10_000;
/** Longest pause before a crashed consumer restarts (then kafkajs waits up to `MAX_RETRY_MS` more). */
const MAX_RESTART_DELAY_MS = 2_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The pause before restart n of a crashed consumer. */
const restartDelay = (crashes: number) => Math.min(250 * 2 ** crashes, MAX_RESTART_DELAY_MS);

/** Per consumer: crashes since the last commit (for the restart backoff) and whether it is being stopped. */
export interface ConsumerState {
  crashes: number;
  stopping: boolean;
  /**
   * Connects, subscribes and runs the consumer again after a crash kafkajs does not restart itself (set by the
   * subscription once it runs). kafkajs restarts only after errors it deems retriable; a broker unreachable for longer
   * than the retries ends in `KafkaJSGroupCoordinatorNotFound`, a non-retriable error, and the consumer would have
   * stayed stopped for good (seen when a broker was stopped and started again).
   */
  relaunch?: () => Promise<void>;
}

export interface ConsumerFactoryOptions {
  onError: OnError;
  /** Consecutive crashes (no commit in between) after which a consumer stops restarting. */
  maxRestarts: number;
  /** Removes the member a crashed consumer was from its group, once the coordinator answers (`former-member.ts`). */
  leaveFormer?: (groupId: string, memberId: string, stopped: () => boolean) => Promise<void>;
}

/**
 * What the broker waits for before it answers a fetch of a gathering consumer (`SubscribeOptions.gatherMs`): more
 * than a batch of P12's submissions, so that under load the wait, not the size, ends the fetch.
 */
export const GATHER_BYTES = 100_000;
/** How long an idle fetch waits at the broker when the subscription does not gather. */
const MAX_WAIT_MS = 1_000;

export type ConsumerFactory = (groupId: string, state: ConsumerState, fetch?: { gatherMs?: number }) => Consumer;

/** kafkajs consumers with Formgate's session, fetch and restart settings, on a client with `CONSUMER_RETRY`. */
export function createConsumerFactory(kafka: Kafka, opts: ConsumerFactoryOptions): ConsumerFactory {
  return (groupId, state, fetch = {}) => {
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_MS,
      rebalanceTimeout: 60_000,
      ...(fetch.gatherMs === undefined
        ? { maxWaitTimeInMs: MAX_WAIT_MS }
        : { maxWaitTimeInMs: fetch.gatherMs, minBytes: GATHER_BYTES }),
      allowAutoTopicCreation: false,
      retry: {
        ...CONSUMER_RETRY,
        restartOnFailure: async () => {
          const crashes = ++state.crashes;
          await sleep(restartDelay(crashes));
          return !state.stopping && crashes <= opts.maxRestarts;
        },
      },
    });
    let relaunching = false;
    /** Until the consumer runs again or is stopped: a pause (the restart backoff), then `state.relaunch()`. */
    const relaunch = async (relaunchConsumer: () => Promise<void>) => {
      relaunching = true;
      try {
        while (!state.stopping) {
          const crashes = ++state.crashes;
          if (crashes > opts.maxRestarts) {
            opts.onError(new Error(`gave up after ${crashes - 1} restarts`), `consumer ${groupId} stopped consuming`);
            return;
          }
          await sleep(restartDelay(crashes));
          if (state.stopping) return;
          try {
            await relaunchConsumer();
            return;
          } catch (err) {
            opts.onError(err, `consumer ${groupId} could not restart`);
          }
        }
      } finally {
        relaunching = false;
      }
    };
    let member: string | undefined;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      member = payload.memberId;
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      // Whether kafkajs restarts it or we do, the consumer joins again as a new member: its former self must go.
      const former = member;
      member = undefined;
      if (former && !state.stopping) void opts.leaveFormer?.(groupId, former, () => state.stopping);
      if (payload.restart || state.stopping) return;
      if (!state.relaunch) {
        opts.onError(payload.error, `consumer ${groupId} stopped consuming`);
        return;
      }
      opts.onError(payload.error, `consumer ${groupId} crashed; restarting it`);
      if (!relaunching) void relaunch(state.relaunch);
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

/** `ConsumerState.relaunch` of `consumer` on `topic`, run again by `run` (unless it was stopped meanwhile). */
export function relauncher(consumer: Consumer, topic: string, state: ConsumerState, run: () => unknown) {
  return async () => {
    await startConsumer(consumer, topic, true);
    if (state.stopping) return void (await consumer.disconnect());
    void run();
  };
}
