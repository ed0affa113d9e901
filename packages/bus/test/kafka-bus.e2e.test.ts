import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { TopicName } from '@formgate/contracts';
import { eventually, loadTestRunConfig } from '@formgate/kit/testing';
import { ownLocalKafka } from '@formgate/kit/testing/backends';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BusMessage, BusUnavailableError, type EventBus, type Subscription } from '../src/event-bus.ts';
import { createKafkaBus, type KafkaBusOptions } from '../src/kafka/index.ts';
import { runBusContract } from './bus.contract.ts';

const brokers = (loadTestRunConfig().KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
if (brokers.length === 0) {
  throw new Error(
    'KAFKA_BROKERS is not set: the e2e globalSetup (tests/harness/global-setup.ts) must start a broker and export ' +
      'KAFKA_BROKERS (comma-separated host:port), e.g. KAFKA_BROKERS=127.0.0.1:19092',
  );
}

/** This file's namespace on the shared broker: other e2e files run at the same time (ADR 53). */
const PREFIX = `e2e-bus-${randomUUID().slice(0, 8)}.`;
const kafkaErrors: string[] = [];
const create = (extra: Partial<KafkaBusOptions> = {}) =>
  createKafkaBus({
    brokers,
    clientId: 'formgate-e2e',
    topicPrefix: PREFIX,
    onError: (err, context) => kafkaErrors.push(`${context}: ${(err as Error)?.message ?? err}`),
    ...extra,
  });

beforeEach(({ onTestFailed }) => {
  kafkaErrors.length = 0;
  onTestFailed(() => console.error(`bus errors during the test:\n${kafkaErrors.join('\n')}`));
});

runBusContract({
  name: 'kafka',
  create: async (options) => create(options),
  deliveryTimeoutMs: 30_000,
});

describe('Kafka bus specifics', () => {
  let bus: EventBus;
  const sends: number[] = [];
  const subs: Subscription[] = [];
  const admin = new Kafka({ brokers, clientId: 'formgate-e2e-admin', logLevel: logLevel.NOTHING }).admin();

  beforeAll(async () => {
    bus = create({ onSend: (n) => sends.push(n) });
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(subs.map((s) => s.stop()));
    await bus.close();
    await admin.disconnect();
  });

  it('batches 10,000 concurrent publish() calls into few produce requests; one group consumes each once', async () => {
    const topic = `kafka.batch.${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name: topic, partitions: 6, compacted: false }]);
    sends.length = 0;
    await Promise.all(
      Array.from({ length: 10_000 }, (_, i) => bus.publish(topic, [{ key: `k${i % 97}`, value: String(i) }])),
    );
    expect(sends.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(sends.length / 10_000).toBeLessThanOrEqual(0.1);

    const seen = new Map<string, number>();
    let deliveries = 0;
    subs.push(
      await bus.subscribe({
        group: `batch.${randomUUID().slice(0, 8)}`,
        topic,
        handler: async (batch) => {
          for (const m of batch) {
            deliveries++;
            seen.set(m.value, (seen.get(m.value) ?? 0) + 1);
          }
        },
      }),
    );
    await eventually(() => expect(seen.size).toBe(10_000), 60_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveries).toBe(10_000);
  });

  it('gathers a trickle into few batches for a subscription with gatherMs, and still delivers a lone record', async () => {
    const topic = `kafka.gather.${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name: topic, partitions: 1, compacted: false }]);
    const batches = { gathered: [] as number[], plain: [] as number[] };
    const arrived: Record<'gathered' | 'plain', number[]> = { gathered: [], plain: [] };
    for (const name of ['gathered', 'plain'] as const) {
      subs.push(
        await bus.subscribe({
          group: `gather.${name}.${randomUUID().slice(0, 8)}`,
          topic,
          fromBeginning: false,
          ...(name === 'gathered' ? { gatherMs: 400 } : {}),
          handler: async (batch) => {
            batches[name].push(batch.length);
            for (const _ of batch) arrived[name].push(Date.now());
          },
        }),
      );
    }
    // Both consuming (joined, fetching) before the trickle starts: the records of a join's wait come in one batch.
    await eventually(async () => {
      await bus.publish(topic, [{ key: 'k', value: 'warm-up' }]);
      expect(batches.gathered.length > 0 && batches.plain.length > 0).toBe(true);
    }, 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const counted = { gathered: arrived.gathered.length, plain: arrived.plain.length };
    batches.gathered.length = 0;
    batches.plain.length = 0;

    // 60 records over at least 0.6 s, one at a time.
    for (let i = 0; i < 60; i++) {
      await bus.publish(topic, [{ key: 'k', value: String(i) }]);
      await new Promise((r) => setTimeout(r, 10));
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    await eventually(() => {
      expect(sum(batches.gathered)).toBe(60);
      expect(sum(batches.plain)).toBe(60);
    }, 30_000);
    // Each gathering fetch waits up to 400 ms for more: a few batches, where the plain subscription takes many.
    expect(batches.gathered.length).toBeLessThanOrEqual(5);
    expect(batches.plain.length).toBeGreaterThan(2 * batches.gathered.length);

    // A lone record is not held for more: it comes once the wait is over.
    const sent = Date.now();
    await bus.publish(topic, [{ key: 'k', value: 'lone' }]);
    await eventually(() => expect(arrived.gathered.length).toBe(counted.gathered + 61), 10_000);
    expect((arrived.gathered.at(-1) as number) - sent).toBeLessThan(3_000);
  }, 90_000);

  it('creates compacted topics with cleanup.policy=compact, their .dlq without, their .dlq.replayed with', async () => {
    const name = `kafka.compact.${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name, partitions: 3, compacted: true }]);
    const physical = `${PREFIX}${name}`;
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: physical, configNames: ['cleanup.policy'] },
        { type: ConfigResourceTypes.TOPIC, name: `${physical}.dlq`, configNames: ['cleanup.policy'] },
        { type: ConfigResourceTypes.TOPIC, name: `${physical}.dlq.replayed`, configNames: ['cleanup.policy'] },
      ],
    });
    const policy = (topic: string) =>
      resources.find((r) => r.resourceName === topic)?.configEntries.find((e) => e.configName === 'cleanup.policy')
        ?.configValue;
    expect(policy(physical)).toBe('compact');
    expect(policy(`${physical}.dlq`)).toBe('delete');
    expect(policy(`${physical}.dlq.replayed`)).toBe('compact');
    const [meta] = (await admin.fetchTopicMetadata({ topics: [physical] })).topics;
    expect(meta?.partitions).toHaveLength(3);
  });

  it('rejects a publish to a missing topic within a few seconds', async () => {
    const t0 = Date.now();
    await expect(bus.publish(`missing.${randomUUID().slice(0, 8)}`, [{ key: 'k', value: 'v' }])).rejects.toThrow(
      /unknown topic/,
    );
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('ping() rejects with BusUnavailableError when no broker answers (what /readyz reports as `bus`)', async () => {
    const down = createKafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'ping-down', connectionTimeoutMs: 500 });
    try {
      await expect(down.ping()).rejects.toBeInstanceOf(BusUnavailableError);
    } finally {
      await down.close();
    }
  }, 30_000);
});

describe('Kafka deployment namespaces (KAFKA_TOPIC_PREFIX)', () => {
  const admin = new Kafka({ brokers, clientId: 'formgate-e2e-ns-admin', logLevel: logLevel.NOTHING }).admin();
  const id = randomUUID().slice(0, 8);
  // Two deployments on one broker, one topic plan: the same logical topic and consumer group in each.
  const [staging, production] = [create({ topicPrefix: `staging-${id}.` }), create({ topicPrefix: `prod-${id}.` })];
  const topic = `ns.events.${id}`;
  const subs: Subscription[] = [];
  beforeAll(() => admin.connect());
  afterAll(async () => {
    await Promise.all(subs.map((s) => s.stop()));
    await Promise.all([staging.close(), production.close(), admin.disconnect()]);
  });

  it('each deployment’s group sees only its own records; the broker holds prefixed topics and groups', async () => {
    for (const bus of [staging, production]) await bus.ensureTopics([{ name: topic, partitions: 2, compacted: false }]);
    const seen = { staging: [] as BusMessage[], production: [] as BusMessage[] };
    for (const [bus, into] of [
      [staging, seen.staging],
      [production, seen.production],
    ] as const) {
      subs.push(await bus.subscribe({ group: 'ns.reader', topic, handler: async (b) => void into.push(...b) }));
    }
    await staging.publish(topic, [{ key: 'a', value: 'staging-1' }]);
    await production.publish(topic, [
      { key: 'a', value: 'prod-1' },
      { key: 'b', value: 'prod-2' },
    ]);
    await eventually(() => {
      expect(seen.staging.map((m) => m.value)).toEqual(['staging-1']);
      expect(seen.production.map((m) => m.value).sort()).toEqual(['prod-1', 'prod-2']);
    }, 30_000);
    // What the handler, lag and dead letters see is the logical name.
    expect(seen.staging[0]?.topic).toBe(topic);

    const names = new Set(await admin.listTopics());
    for (const prefix of [`staging-${id}.`, `prod-${id}.`]) {
      for (const suffix of ['', '.dlq', '.dlq.replayed']) expect(names.has(`${prefix}${topic}${suffix}`)).toBe(true);
    }
    expect(names.has(topic)).toBe(false);
    await eventually(async () => {
      const lag = await production.lag([{ group: 'ns.reader', topic: topic as TopicName }]);
      expect(lag.map((l) => [l.group, l.topic])).toEqual([
        ['ns.reader', topic],
        ['ns.reader', topic],
      ]);
      expect(lag.reduce((sum, l) => sum + Number(l.end), 0)).toBe(2);
      expect(lag.every((l) => l.lag === 0)).toBe(true);
    }, 15_000);
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    expect(groups).toEqual(expect.arrayContaining([`staging-${id}.ns.reader`, `prod-${id}.ns.reader`]));
    expect(groups).not.toContain('ns.reader');
  });
});

describe('Kafka bus recovery', () => {
  // A broker of this file's own, two ports above the shared one (whose controller takes port + 1), so stopping it
  // disturbs no other test.
  const port = Number((brokers[0] ?? '').split(':').at(-1)) + 2;
  let broker: Awaited<ReturnType<typeof ownLocalKafka>>;
  let bus: EventBus;

  beforeAll(async () => {
    broker = await ownLocalKafka(port, resolve(import.meta.dirname, '../../../.run/test'));
    bus = create({ brokers: [broker.value] });
  });
  afterAll(async () => {
    await bus.close();
    await broker.stop();
  });

  it('a consumer delivers a record published after the broker was down 8 s and started again, within 15 s', async () => {
    const topic = `kafka.recovery.${randomUUID().slice(0, 8)}`;
    await bus.ensureTopics([{ name: topic, partitions: 1, compacted: false }]);
    const seen: BusMessage[] = [];
    await bus.subscribe({ group: 'recovery', topic, handler: async (batch) => void seen.push(...batch) });
    await bus.publish(topic, [{ key: 'k', value: 'before' }]);
    await eventually(() => expect(seen.map((m) => m.value)).toEqual(['before']), 30_000);
    await broker.stop();
    const down = Date.now();
    await expect(bus.publish(topic, [{ key: 'k', value: 'while down' }])).rejects.toBeInstanceOf(BusUnavailableError);
    // The publish deadline (3 s), not kafkajs' retries, decides how long a caller waits to learn the log is down.
    expect(Date.now() - down).toBeLessThan(6_000);
    // Down for 8 s: the consumer's heartbeats fail and its rejoin looks for the group coordinator while no broker
    // answers, a crash kafkajs does not restart itself (KafkaJSGroupCoordinatorNotFound, non-retriable); the
    // subscription must relaunch it.
    await new Promise((r) => setTimeout(r, Math.max(0, down + 8_000 - Date.now())));
    await broker.start();
    const back = Date.now();
    await eventually(() => bus.publish(topic, [{ key: 'k', value: 'after' }]), 15_000);
    await eventually(() => expect(seen.map((m) => m.value)).toContain('after'), 15_000);
    expect(seen[0]?.value).toBe('before');
    expect(Date.now() - back).toBeLessThan(15_000);
  });
});
