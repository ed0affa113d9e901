import type { Admin } from 'kafkajs';
import { createDeadLetters, type DeadLetterLog } from '../dead-letters.ts';
import type { DeliveryHooks } from '../delivery.ts';
import {
  type BusMessage,
  BusUnavailableError,
  type EventBus,
  type EventPublisher,
  type EventSubscriber,
} from '../event-bus.ts';
import { measureLag } from '../lag.ts';
import { type BusMetrics, NO_BUS_METRICS, timedPublish } from '../metrics.ts';
import { createSubscriptionRegistry } from '../subscriptions.ts';
import { createTopics, type Topics } from './admin.ts';
import { CONSUMER_RETRY, connected, createKafkaClient } from './client.ts';
import { createConsumerFactory } from './consumer.ts';
import { createFormerMemberLeave } from './former-member.ts';
import { createGroupStart } from './group-start.ts';
import { createNamespace, type Namespace } from './namespace.ts';
import { createBatchingProducer } from './producer.ts';
import { createReplay } from './replay.ts';
import { createSubscribe } from './subscribe.ts';

export interface KafkaBusOptions extends DeliveryHooks {
  brokers: string[];
  clientId: string;
  /**
   * The deployment's namespace on a shared cluster (`KAFKA_TOPIC_PREFIX`, ADR 53), put in front of every topic and
   * consumer group id on the broker; callers keep logical names. Default empty: the names are the logical ones.
   */
  topicPrefix?: string;
  /** How long the first queued publish waits for others to share its produce request. */
  lingerMs?: number;
  /** A flush starts once this many messages are queued; one produce request carries at most this many. */
  maxBatchMessages?: number;
  /** Messages accepted but not yet acknowledged; beyond it publish() rejects with BusUnavailableError. */
  maxQueuedMessages?: number;
  /**
   * How long publish() waits for the broker's acknowledgement before rejecting with BusUnavailableError (default
   * 3 s), so a caller answers 503 quickly while the broker is down instead of waiting out kafkajs' retries.
   */
  publishTimeoutMs?: number;
  replicationFactor?: number;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Consecutive consumer crashes (no commit in between) after which a subscription stops restarting. */
  maxConsumerRestarts?: number;
  /** Called before every produce request with the number of messages it carries. */
  onSend?: (messageCount: number) => void;
  /** Publish latency, batch sizes, lag and dead letters (`createMetrics().bus`); default: not recorded. */
  metrics?: BusMetrics;
}

/**
 * The dead-letter operations' view of Kafka, on logical topics: offsets from the admin client, reads through
 * `replay()`.
 */
function deadLetterLog(
  topics: Topics,
  names: Namespace,
  publish: EventPublisher['publish'],
  replay: EventSubscriber['replay'],
): DeadLetterLog {
  const bounds = async (topic: string) => {
    const [p] = await topics.offsets(names.topic(topic));
    return { low: BigInt(p?.low ?? 0), high: BigInt(p?.high ?? 0) };
  };
  return {
    publish,
    bounds,
    async readAll(topic) {
      const { low, high } = await bounds(topic);
      if (low === high) return [];
      const records: BusMessage[] = [];
      await (await replay(topic, (m) => records.push(m))).stop();
      return records;
    },
  };
}

/**
 * The event bus on Apache Kafka (kafkajs): a batching idempotent producer (`producer.ts`), topic administration
 * (`admin.ts`), consumer groups that commit a chunk only after `deliver()` handled or dead-lettered it
 * (`subscribe.ts`, at-least-once), and group-less reads of compacted topics (`replay.ts`).
 */
export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  const names = createNamespace(opts.topicPrefix);
  const onError = opts.onError ?? (() => {});
  const kafka = createKafkaClient({ ...opts, onError });
  const admin = connected<Admin>(() => kafka.admin());
  const topics = createTopics(admin, opts.replicationFactor ?? 1);
  const metrics = opts.metrics ?? NO_BUS_METRICS;
  const producer = createBatchingProducer(kafka, {
    lingerMs: opts.lingerMs ?? 5,
    maxBatchMessages: opts.maxBatchMessages ?? 500,
    maxQueuedMessages: opts.maxQueuedMessages ?? 50_000,
    publishTimeoutMs: opts.publishTimeoutMs ?? 3_000,
    onError,
    onSend: (count) => {
      metrics.observeAppend('kafka', count);
      opts.onSend?.(count);
    },
    requireTopic: topics.require,
  });
  const groupStart = createGroupStart(kafka, topics.committed, onError);
  const registry = createSubscriptionRegistry();
  const newConsumer = createConsumerFactory(createKafkaClient({ ...opts, onError }, CONSUMER_RETRY), {
    onError,
    maxRestarts: opts.maxConsumerRestarts ?? Number.POSITIVE_INFINITY,
    leaveFormer: createFormerMemberLeave(kafka, onError),
  });
  const deleteGroup = async (groupId: string) => void (await (await admin.get()).deleteGroups([groupId]));
  const replay = createReplay({ topics, names, newConsumer, groupStart, registry, deleteGroup, onError });
  // From here on every name is logical; `names` turns it into the broker's.
  const publish: EventPublisher['publish'] = (topic, messages) => producer.publish(names.topic(topic), messages);

  return {
    publish: timedPublish(publish, metrics),
    ensureTopics: (specs) => topics.ensure(specs.map((s) => ({ ...s, name: names.topic(s.name) }))),
    subscribe: createSubscribe({
      topics,
      names,
      groupStart,
      newConsumer,
      dlq: { publish },
      registry,
      onError,
      onDeadLetter: opts.onDeadLetter,
      storeHealthy: opts.storeHealthy,
      metrics,
    }),
    replay,
    deadLetters: createDeadLetters(deadLetterLog(topics, names, publish, replay)),
    async ping() {
      try {
        await (await admin.get()).describeCluster();
      } catch (err) {
        throw err instanceof BusUnavailableError
          ? err
          : new BusUnavailableError('Kafka did not answer', { cause: err });
      }
    },
    async lag(groups) {
      try {
        return await measureLag(groups, {
          offsets: async (topic) => {
            try {
              await topics.require(names.topic(topic));
            } catch (err) {
              if (err instanceof BusUnavailableError) throw err;
              return []; // The topic does not exist (yet): no partitions, no lag.
            }
            return (await topics.offsets(names.topic(topic))).map((o) => ({
              partition: o.partition,
              low: BigInt(o.low),
              high: BigInt(o.high),
            }));
          },
          committed: (group, topic) => topics.committed(names.group(group), names.topic(topic)),
        });
      } catch (err) {
        throw err instanceof BusUnavailableError
          ? err
          : new BusUnavailableError('cannot read consumer offsets from Kafka', { cause: err });
      }
    },
    // Kafka cannot rewrite a record: an erased submission's records go with the topic's retention (docs/privacy.md).
    eraseRecords: async () => null,
    async close() {
      await registry.stopAll();
      await producer.close();
      await groupStart.close();
      await admin.reset();
    },
  };
}
