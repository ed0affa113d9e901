import { Kafka, logLevel } from 'kafkajs';
import { BusUnavailableError } from '../event-bus.ts';

export type OnError = (err: unknown, context: string) => void;

/** kafkajs retry settings for metadata, produce and connection calls. */
export const RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000, factor: 0.2, multiplier: 2 };

/**
 * For consumers' connections: without limit and at most 1 s apart. An exhausted connection retry crashes the
 * consumer, and a crashed consumer rejoins as a new member that waits for its own former self to time out; a
 * consumer that keeps retrying keeps its member id and resumes within about a second of the broker's return.
 */
export const CONSUMER_RETRY = { ...RETRY, retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 1_000 };

const RETRIED_BY_KAFKAJS = /group is rebalancing|coordinator is (loading|not available)|not the correct coordinator/i;

export interface ClientOptions {
  brokers: string[];
  clientId: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  onError: OnError;
}

/** A kafkajs client; its log lines reach `onError`, except what kafkajs retries by itself. */
export function createKafkaClient(opts: ClientOptions, retry = RETRY): Kafka {
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    connectionTimeout: opts.connectionTimeoutMs ?? 3_000,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    retry,
    logLevel: logLevel.ERROR,
    logCreator:
      () =>
      ({ namespace, log }) => {
        const message = log.error ? `${log.message}: ${log.error}` : log.message;
        if (!RETRIED_BY_KAFKAJS.test(message)) opts.onError(new Error(message), `kafkajs ${namespace}`);
      },
  });
}

interface Connectable {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/** A lazily connected kafkajs client (admin or producer), created again after `reset()`. */
export interface Connected<T> {
  get(): Promise<T>;
  reset(): Promise<void>;
}

export function connected<T extends Connectable>(create: () => T): Connected<T> {
  let current: Promise<T> | undefined;
  const connect = async () => {
    const client = create();
    try {
      await client.connect();
      return client;
    } catch (err) {
      current = undefined;
      throw new BusUnavailableError('cannot connect to Kafka', { cause: err });
    }
  };
  return {
    get: () => {
      current ??= connect();
      return current;
    },
    reset: async () => {
      const old = current;
      current = undefined;
      await old?.then((c) => c.disconnect()).catch(() => {});
    },
  };
}
