import { randomUUID } from 'node:crypto';
import type { TopicSpec } from '@formgate/contracts';
import { dlqTopic } from '@formgate/contracts';
import type { Admin, Batch, Consumer, EachBatchPayload, ITopicConfig, KafkaMessage, Message, Producer } from 'kafkajs';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { DeliveryAborted, deliver } from './delivery.ts';
import type { BusMessage, EventBus, OutgoingMessage, Subscription } from './event-bus.ts';
import { BusUnavailableError, DEFAULT_RETRY } from './event-bus.ts';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** How long the first queued publish waits for others to share its produce request. */
  lingerMs?: number;
  /** A flush starts once this many messages are queued; one produce request carries at most this many. */
  maxBatchMessages?: number;
  /** Messages accepted but not yet acknowledged; beyond it publish() rejects with BusUnavailableError. */
  maxQueuedMessages?: number;
  replicationFactor?: number;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Consecutive consumer crashes (no commit in between) after which a subscription stops restarting. */
  maxConsumerRestarts?: number;
  onError?: (err: unknown, context: string) => void;
  /** Called before every produce request with the number of messages it carries. */
  onSend?: (messageCount: number) => void;
}

type Pending = { topic: string; messages: Message[]; bytes: number; resolve: () => void; reject: (e: unknown) => void };

const RETRIED_BY_KAFKAJS = /group is rebalancing|coordinator is (loading|not available)|not the correct coordinator/i;
/** Key+value+header bytes per produce request; the broker refuses record batches over ~1 MB per partition. */
const MAX_BATCH_BYTES = 900_000;
const RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 2_000, factor: 0.2, multiplier: 2 };
const HEARTBEAT_MS = 1_000;
const JOIN_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REVOKED = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

const toBusMessage = (batch: Batch, m: KafkaMessage): BusMessage => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (last !== undefined) headers[k] = last.toString();
  }
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: m.offset,
    key: m.key?.toString() ?? '',
    value: m.value?.toString() ?? '',
    headers,
    timestamp: Number(m.timestamp),
  };
};

/**
 * The event bus on Apache Kafka (kafkajs). Publishes are batched Formgate-side (linger or size) into one
 * `sendBatch` at a time on an idempotent producer with acks=-1; the producer is recreated after a failed send.
 * Consumers commit a chunk's offset only after `deliver()` handled or dead-lettered it (at-least-once).
 */
export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  const onError = opts.onError ?? (() => {});
  const lingerMs = opts.lingerMs ?? 5;
  const maxBatchMessages = opts.maxBatchMessages ?? 500;
  const maxQueued = opts.maxQueuedMessages ?? 50_000;
  const maxRestarts = opts.maxConsumerRestarts ?? Number.POSITIVE_INFINITY;
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    connectionTimeout: opts.connectionTimeoutMs ?? 3_000,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    retry: RETRY,
    logLevel: logLevel.ERROR,
    logCreator:
      () =>
      ({ namespace, log }) => {
        const message = log.error ? `${log.message}: ${log.error}` : log.message;
        if (!RETRIED_BY_KAFKAJS.test(message)) onError(new Error(message), `kafkajs ${namespace}`);
      },
  });

  const connected = <T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(create: () => T) => {
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
  };
  const admin = connected<Admin>(() => kafka.admin());
  const producer = connected<Producer>(() =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: RETRY,
    }),
  );

  const knownTopics = new Set<string>();
  let refreshing: Promise<void> | undefined;
  const requireTopic = async (topic: string) => {
    if (knownTopics.has(topic)) return;
    refreshing ??= (async () => {
      try {
        for (const t of await (await admin.get()).listTopics()) knownTopics.add(t);
      } finally {
        refreshing = undefined;
      }
    })();
    try {
      await refreshing;
    } catch (err) {
      throw new BusUnavailableError('cannot list Kafka topics', { cause: err });
    }
    if (!knownTopics.has(topic)) throw new Error(`unknown topic ${topic}`);
  };

  let queue: Pending[] = [];
  let waiting = 0;
  let inFlight = 0;
  let due = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> | undefined;

  const send = async () => {
    let [take, bytes, count] = [0, 0, 0];
    for (const p of queue) {
      if (take > 0 && (count + p.messages.length > maxBatchMessages || bytes + p.bytes > MAX_BATCH_BYTES)) break;
      take++;
      count += p.messages.length;
      bytes += p.bytes;
    }
    const batch = queue.slice(0, take);
    queue = queue.slice(take);
    waiting -= count;
    inFlight += count;
    const byTopic = new Map<string, Message[]>();
    for (const p of batch) {
      const list = byTopic.get(p.topic);
      if (list) list.push(...p.messages);
      else byTopic.set(p.topic, [...p.messages]);
    }
    try {
      const p = await producer.get();
      opts.onSend?.(count);
      await p.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
      for (const p of batch) p.resolve();
    } catch (err) {
      onError(err, `sendBatch of ${count} messages failed; recreating the producer`);
      await producer.reset();
      const error = new BusUnavailableError('Kafka did not acknowledge the messages', { cause: err });
      for (const p of batch) p.reject(error);
    } finally {
      inFlight -= count;
    }
  };

  const pump = () => {
    if (queue.length === 0) return;
    if (waiting >= maxBatchMessages || closed) due = true;
    if (!due) {
      timer ??= setTimeout(() => {
        timer = undefined;
        due = true;
        pump();
      }, lingerMs);
      return;
    }
    if (sending) return;
    clearTimeout(timer);
    timer = undefined;
    due = false;
    sending = send().finally(() => {
      sending = undefined;
      pump();
    });
  };

  const publish = async (topic: string, messages: OutgoingMessage[]) => {
    if (messages.length === 0) return;
    if (closed) throw new BusUnavailableError('event bus is closed');
    await requireTopic(topic);
    if (waiting + inFlight + messages.length > maxQueued) throw new BusUnavailableError('publish queue is full');
    let bytes = 0;
    const records = messages.map((m) => {
      bytes += m.key.length + m.value.length;
      for (const [k, v] of Object.entries(m.headers ?? {})) bytes += k.length + v.length;
      return { key: m.key, value: m.value, headers: m.headers ?? {} };
    });
    await new Promise<void>((resolve, reject) => {
      queue.push({ topic, messages: records, bytes, resolve, reject });
      waiting += records.length;
      pump();
    });
  };

  const subscriptions = new Set<Subscription>();
  const newConsumer = (groupId: string, state: { crashes: number; stopping: boolean }) => {
    const consumer: Consumer = kafka.consumer({
      groupId,
      sessionTimeout: 15_000,
      heartbeatInterval: HEARTBEAT_MS,
      rebalanceTimeout: 60_000,
      maxWaitTimeInMs: 1_000,
      allowAutoTopicCreation: false,
      retry: {
        ...RETRY,
        retries: 8,
        maxRetryTime: 10_000,
        restartOnFailure: async () => {
          const crashes = ++state.crashes;
          await sleep(Math.min(250 * 2 ** crashes, 30_000));
          return !state.stopping && crashes <= maxRestarts;
        },
      },
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart && !state.stopping) onError(payload.error, `consumer ${groupId} stopped consuming`);
    });
    return consumer;
  };
  const start = async (consumer: Consumer, topic: string, fromBeginning: boolean) => {
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning });
    } catch (err) {
      await consumer.disconnect().catch(() => {});
      throw new BusUnavailableError(`cannot subscribe to ${topic}`, { cause: err });
    }
  };
  const track = (stop: () => Promise<void>): Subscription => {
    let stopping: Promise<void> | undefined;
    const sub: Subscription = {
      stop: () => {
        stopping ??= stop().finally(() => subscriptions.delete(sub));
        return stopping;
      },
    };
    subscriptions.add(sub);
    return sub;
  };

  /** Retries a metadata call through leader elections and stale metadata (a few seconds at most). */
  const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (attempt >= 15 || (err as { retriable?: boolean }).retriable === false) throw err;
        await new Promise((r) => setTimeout(r, 200 * Math.min(attempt, 5)));
      }
    }
  };

  /** Topics created by another process may still be electing leaders: wait until every partition has one. */
  const waitForLeaders = async (client: Admin, topics: string[]) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const { topics: meta } = await client.fetchTopicMetadata({ topics });
        if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new Error(`topics have no leader after 60 s: ${topics.join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  return {
    publish,

    async ensureTopics(specs: readonly TopicSpec[]) {
      const client = await admin.get();
      const existing = new Set(await client.listTopics());
      const replicationFactor = opts.replicationFactor ?? 1;
      const wanted = new Map<string, ITopicConfig>();
      for (const s of specs) {
        const configEntries = s.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [];
        wanted.set(s.name, { topic: s.name, numPartitions: s.partitions, replicationFactor, configEntries });
        wanted.set(dlqTopic(s.name), { topic: dlqTopic(s.name), numPartitions: 1, replicationFactor });
      }
      const missing = [...wanted.values()].filter((t) => !existing.has(t.topic));
      if (missing.length > 0) {
        try {
          await client.createTopics({ topics: missing, waitForLeaders: true });
        } catch (err) {
          // Another process created some of them first; waiting for leaders below covers both cases.
          if (!JSON.stringify((err as { errors?: unknown }).errors ?? err).includes('TOPIC_ALREADY_EXISTS')) throw err;
        }
      }
      await waitForLeaders(client, [...wanted.keys()]);
      for (const name of wanted.keys()) knownTopics.add(name);
    },

    async subscribe({ group, topic, handler, fromBeginning = true, maxBatchSize = 500, retry }) {
      await requireTopic(topic);
      const state = { crashes: 0, stopping: false };
      let revoked = false;
      const consumer = newConsumer(group, state);
      const ctx = {
        group,
        policy: retry ?? DEFAULT_RETRY,
        dlq: { publish },
        isStopping: () => state.stopping || revoked,
        onDeadLetter: (m: BusMessage, e: unknown) => onError(e, `dead-lettered ${topic}/${m.partition}@${m.offset}`),
      };
      const eachBatch = async ({ batch, heartbeat, isRunning, isStale, ...payload }: EachBatchPayload) => {
        const messages = batch.messages.map((m) => toBusMessage(batch, m));
        for (let i = 0; i < messages.length; i += maxBatchSize) {
          if (i > 0 && (!isRunning() || isStale() || revoked)) return;
          const chunk = messages.slice(i, i + maxBatchSize);
          const beat = setInterval(() => {
            heartbeat().catch((err) => {
              if (REVOKED.has(err?.type)) revoked = true;
            });
          }, HEARTBEAT_MS);
          try {
            await deliver(chunk, handler, ctx);
          } catch (err) {
            if (err instanceof DeliveryAborted) return;
            throw err;
          } finally {
            clearInterval(beat);
          }
          const last = (chunk.at(-1) as BusMessage).offset;
          const partitions = [{ partition: batch.partition, offset: String(BigInt(last) + 1n) }];
          await payload.commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions }] });
          payload.resolveOffset(last);
          state.crashes = 0;
          await heartbeat();
        }
      };
      await start(consumer, topic, fromBeginning);
      const joined = new Promise<void>((resolve) => {
        const timeout = setTimeout(() => {
          onError(new Error(`no group join within ${JOIN_TIMEOUT_MS} ms`), `consumer ${group} on ${topic}`);
          resolve();
        }, JOIN_TIMEOUT_MS);
        const ready = () => {
          clearTimeout(timeout);
          resolve();
        };
        let member = false;
        consumer.on(consumer.events.GROUP_JOIN, () => {
          revoked = false;
          member = true;
          if (fromBeginning) ready();
        });
        // A new group with fromBeginning=false takes the log end at its first fetch, not at the join.
        consumer.on(consumer.events.FETCH, () => member && ready());
      });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 4,
        eachBatch,
      });
      await joined;
      return track(async () => {
        state.stopping = true;
        await consumer.disconnect();
      });
    },

    async replay(topic, onMessage) {
      await requireTopic(topic);
      const client = await admin.get();
      const pending = new Map<number, bigint>();
      for (const o of await retrying(() => client.fetchTopicOffsets(topic))) {
        if (BigInt(o.high) > BigInt(o.low)) pending.set(o.partition, BigInt(o.high));
      }
      const groupId = `replay.${topic}.${randomUUID()}`;
      const state = { crashes: 0, stopping: false };
      const consumer = newConsumer(groupId, state);
      const stop = async () => {
        state.stopping = true;
        await consumer.disconnect();
        await client.deleteGroups([groupId]).catch(() => {});
      };
      let settle: (err?: unknown) => void = () => {};
      const caughtUp = new Promise<void>((resolve, reject) => {
        settle = (err) => (err ? reject(err) : pending.size === 0 && resolve());
      });
      caughtUp.catch(() => {});
      settle();
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) settle(new BusUnavailableError(`replay of ${topic} failed`, { cause: payload.error }));
      });
      await start(consumer, topic, true);
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            try {
              onMessage(toBusMessage(batch, m));
            } catch (err) {
              onError(err, `replay of ${topic}/${batch.partition}@${m.offset}`);
            }
          }
          const target = pending.get(batch.partition);
          if (target !== undefined && BigInt(batch.lastOffset()) + 1n >= target) {
            pending.delete(batch.partition);
            settle();
          }
        },
      });
      await caughtUp.catch(async (err) => {
        await stop().catch(() => {});
        throw err;
      });
      return track(stop);
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      closed = true;
      pump();
      while (sending) await sending;
      await producer.reset();
      await admin.reset();
    },
  };
}
