import { randomUUID } from 'node:crypto';
import type { ConsumerGroupSpec, TopicSpec } from '@formgate/contracts';
import { createMetrics } from '@formgate/kit';
import {
  type ContractSkip,
  describeContract,
  eventually,
  parsePrometheusText,
  samplesOf,
  sumOf,
} from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { BusMessage, EventBus, Subscription } from '../src/event-bus.ts';
import type { BusMetrics } from '../src/metrics.ts';
import { replayFromCases } from './replay-from.contract.ts';

const TRACE_CONTEXT = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'fg=t61rcWkgMzE',
};

export interface BusContractTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  /** A fresh bus (recording into `metrics` when given). Topics are unique per test, so adapters may share one server. */
  create: (options?: { metrics?: BusMetrics }) => Promise<EventBus>;
  /** Upper bound for a record to travel publish → handler on this adapter. */
  deliveryTimeoutMs: number;
}

const fastRetry = { attempts: 3, initialDelayMs: 10, maxDelayMs: 50 };

function topicSpec(partitions = 3, compacted = false): TopicSpec {
  return { name: `contract.${randomUUID().slice(0, 8)}`, partitions, compacted };
}

const msg = (key: string, value: string) => ({ key, value });
const transientError = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
const permanentError = () => Object.assign(new Error('invalid payload'), { retryable: false });

/** The guarantees of `EventBus` (see its JSDoc), checked against one adapter. */
export function runBusContract(target: BusContractTarget) {
  describeContract(`EventBus contract: ${target.name}`, target.skip, (it) => {
    let bus: EventBus;
    const subs: Subscription[] = [];
    const wait = target.deliveryTimeoutMs;
    const subscribe: EventBus['subscribe'] = async (o) => {
      const s = await bus.subscribe(o);
      subs.push(s);
      return s;
    };

    beforeAll(async () => {
      bus = await target.create();
    });
    afterAll(async () => {
      await Promise.all(subs.map((s) => s.stop()));
      await bus.close();
    });

    it('delivers every published record, in publish order per key, with key, value and headers', async () => {
      const spec = topicSpec();
      await bus.ensureTopics([spec]);
      const keys = ['a', 'b', 'c', 'd'];
      await Promise.all(
        keys.map((k) =>
          bus.publish(
            spec.name,
            Array.from({ length: 25 }, (_, i) => ({
              key: k,
              value: String(i),
              // W3C trace context rides in the headers (ADR 51): it must arrive byte for byte.
              headers: k === 'c' && i === 7 ? { h: 'c7', ...TRACE_CONTEXT } : { h: `${k}${i}` },
            })),
          ),
        ),
      );
      const seen: BusMessage[] = [];
      await subscribe({ group: 'g1', topic: spec.name, handler: async (b) => void seen.push(...b) });
      await eventually(() => expect(seen).toHaveLength(100), wait);
      for (const k of keys) {
        const values = seen.filter((m) => m.key === k).map((m) => Number(m.value));
        expect(values).toEqual(Array.from({ length: 25 }, (_, i) => i));
      }
      expect(seen.find((m) => m.key === 'c' && m.value === '7')?.headers).toEqual({ h: 'c7', ...TRACE_CONTEXT });
      expect(seen.find((m) => m.key === 'c' && m.value === '8')?.headers).toEqual({ h: 'c8' });
    });

    it('gives each group every record, and resumes a group after its last committed offset', async () => {
      const spec = topicSpec();
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', '1'), msg('k', '2')]);
      const first: string[] = [];
      const other: string[] = [];
      const s1 = await subscribe({
        group: 'resume',
        topic: spec.name,
        handler: async (b) => void first.push(...b.map((m) => m.value)),
      });
      await subscribe({
        group: 'other',
        topic: spec.name,
        handler: async (b) => void other.push(...b.map((m) => m.value)),
      });
      await eventually(() => expect(first).toEqual(['1', '2']), wait);
      await s1.stop();
      await bus.publish(spec.name, [msg('k', '3')]);
      const second: string[] = [];
      await subscribe({
        group: 'resume',
        topic: spec.name,
        handler: async (b) => void second.push(...b.map((m) => m.value)),
      });
      await eventually(() => expect(second).toEqual(['3']), wait);
      await eventually(() => expect(other).toEqual(['1', '2', '3']), wait);
    });

    it('erases the records holding a needle, except those holding `unless`, and consumers skip them (or says it cannot)', async () => {
      const spec = topicSpec(2);
      await bus.ensureTopics([spec]);
      const needle = randomUUID();
      const keep = randomUUID();
      await bus.publish(spec.name, [
        msg('a', `before ${needle} secret-words`),
        msg('a', 'unrelated'),
        msg('b', `deleted ${needle} by ${keep}`),
        msg('b', `other ${needle}`),
      ]);
      const erased = await bus.eraseRecords({ holding: [needle, ''], unless: keep });
      const seen: BusMessage[] = [];
      await subscribe({ group: 'after-erasure', topic: spec.name, handler: async (b) => void seen.push(...b) });
      if (erased === null) {
        // A log that cannot rewrite records (Kafka) keeps them: they go with the topic's retention.
        await eventually(() => expect(seen).toHaveLength(4), wait);
        return;
      }
      expect(erased).toBe(2);
      await eventually(
        () => expect(seen.map((m) => m.value).sort()).toEqual([`deleted ${needle} by ${keep}`, 'unrelated']),
        wait,
      );
      // Skipped, not stuck: what follows is delivered, and the group's lag drains.
      await bus.publish(spec.name, [msg('a', 'after')]);
      await eventually(() => expect(seen.map((m) => m.value)).toContain('after'), wait);
      await eventually(async () => {
        const lag = await bus.lag([{ group: 'after-erasure', topic: spec.name as never }]);
        expect(lag.reduce((n, l) => n + l.lag, 0)).toBe(0);
      }, wait);
    });

    it('splits partitions between two members of one group: every record handled, none twice once settled', async () => {
      const spec = topicSpec(4);
      await bus.ensureTopics([spec]);
      const byMember: string[][] = [[], []];
      for (const i of [0, 1]) {
        await subscribe({
          group: 'shared',
          topic: spec.name,
          handler: async (b) => void byMember[i]?.push(...b.map((m) => m.value)),
        });
      }
      // Let the group settle before publishing, so no rebalance replays anything.
      await new Promise((r) => setTimeout(r, Math.min(wait / 4, 3000)));
      const values = Array.from({ length: 200 }, (_, i) => String(i));
      await bus.publish(
        spec.name,
        values.map((v) => msg(`key-${v}`, v)),
      );
      await eventually(() => expect(new Set([...(byMember[0] ?? []), ...(byMember[1] ?? [])]).size).toBe(200), wait);
      expect([...(byMember[0] ?? []), ...(byMember[1] ?? [])]).toHaveLength(200);
      expect(byMember[0]?.length).toBeGreaterThan(0);
      expect(byMember[1]?.length).toBeGreaterThan(0);
    });

    it('retries a failing batch, then dead-letters only the poison record and keeps the partition flowing', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'ok-1'), msg('k', 'poison'), msg('k', 'ok-2')]);
      const handled: string[] = [];
      let poisonAttempts = 0;
      await subscribe({
        group: 'poison',
        topic: spec.name,
        retry: fastRetry,
        handler: async (batch) => {
          if (batch.some((m) => m.value === 'poison')) {
            poisonAttempts++;
            throw new Error('cannot handle');
          }
          handled.push(...batch.map((m) => m.value));
        },
      });
      const dead: BusMessage[] = [];
      await subscribe({ group: 'dlq-reader', topic: `${spec.name}.dlq`, handler: async (b) => void dead.push(...b) });
      await eventually(() => expect(dead).toHaveLength(1), wait);
      await eventually(() => expect(handled.filter((v) => v.startsWith('ok'))).toEqual(['ok-1', 'ok-2']), wait);
      expect(dead[0]?.value).toBe('poison');
      expect(dead[0]?.headers['x-error']).toContain('cannot handle');
      expect(dead[0]?.headers['x-group']).toBe('poison');
      expect(dead[0]?.headers['x-failure']).toBe('unknown');
      expect(poisonAttempts).toBeGreaterThanOrEqual(fastRetry.attempts);
      await bus.publish(spec.name, [msg('k', 'ok-3')]);
      await eventually(() => expect(handled).toContain('ok-3'), wait);
    });

    /** Every record of `<topic>.dlq` so far: appends a sentinel and reads the dead letters up to it. */
    const deadLettersOf = async (topic: string) => {
      const sentinel = randomUUID();
      await bus.publish(`${topic}.dlq`, [msg('sentinel', sentinel)]);
      const seen: BusMessage[] = [];
      const s = await bus.replay(`${topic}.dlq`, (m) => seen.push(m));
      await eventually(() => expect(seen.map((m) => m.value)).toContain(sentinel), wait);
      await s.stop();
      return seen.filter((m) => m.value !== sentinel);
    };

    it('retries a transient failure without limit: nothing dead-lettered, the partition waits, then flows in order', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'flaky'), msg('k', 'after-1'), msg('k', 'after-2')]);
      const handled: string[] = [];
      let failures = 0;
      await subscribe({
        group: 'transient',
        topic: spec.name,
        retry: { attempts: 3, initialDelayMs: 5, maxDelayMs: 20 },
        handler: async (batch) => {
          if (batch.some((m) => m.value === 'flaky') && failures < 12) {
            failures++;
            throw transientError();
          }
          handled.push(...batch.map((m) => m.value));
        },
      });
      await eventually(() => expect(handled).toEqual(['flaky', 'after-1', 'after-2']), wait);
      expect(failures).toBe(12);
      expect(await deadLettersOf(spec.name)).toEqual([]);
    });

    it('dead-letters a permanent failure after one call for that message alone, without retrying it', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'ok-1'), msg('k', 'bad'), msg('k', 'ok-2')]);
      const handled: string[] = [];
      const callsWithBad: string[][] = [];
      await subscribe({
        group: 'permanent',
        topic: spec.name,
        retry: fastRetry,
        handler: async (batch) => {
          if (batch.some((m) => m.value === 'bad')) {
            callsWithBad.push(batch.map((m) => m.value));
            throw permanentError();
          }
          handled.push(...batch.map((m) => m.value));
        },
      });
      await eventually(() => expect(handled).toEqual(['ok-1', 'ok-2']), wait);
      const dead = await deadLettersOf(spec.name);
      expect(dead.map((m) => [m.value, m.headers['x-failure'], m.headers['x-error']])).toEqual([
        ['bad', 'permanent', 'invalid payload'],
      ]);
      expect(Date.parse(dead[0]?.headers['x-dead-lettered-at'] ?? '')).toBeGreaterThan(Date.now() - 60_000);
      expect(callsWithBad.filter((c) => c.length === 1)).toEqual([['bad']]);
      // The batch, then each half holding it once, down to the record alone: [ok-1, bad, ok-2], [ok-1, bad], [bad].
      expect(callsWithBad.length).toBeLessThanOrEqual(3);
    });

    it('stop() during a transient wait resolves promptly and commits nothing: the next member gets the record', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'stuck')]);
      let calls = 0;
      const waiting = await bus.subscribe({
        group: 'stuck',
        topic: spec.name,
        retry: { attempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
        handler: async () => {
          calls++;
          throw transientError();
        },
      });
      await eventually(() => expect(calls).toBe(1), wait);
      const t0 = Date.now();
      await waiting.stop();
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(calls).toBe(1);
      const next: string[] = [];
      await subscribe({
        group: 'stuck',
        topic: spec.name,
        handler: async (b) => void next.push(...b.map((m) => m.value)),
      });
      await eventually(() => expect(next).toEqual(['stuck']), wait);
      expect(await deadLettersOf(spec.name)).toEqual([]);
    });

    it('lists dead letters with their origin and failure, replays each once, and counts what is left', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      const values = ['bad-1', 'ok', 'bad-2'];
      await bus.publish(
        spec.name,
        values.map((v) => ({ key: 'k', value: v, headers: { h: v } })),
      );
      const handled: BusMessage[] = [];
      await subscribe({
        group: 'dl',
        topic: spec.name,
        handler: async (batch) => {
          if (batch.some((m) => m.value.startsWith('bad') && !m.headers['x-replayed-from'])) throw permanentError();
          handled.push(...batch);
        },
      });
      await eventually(
        async () => expect(await bus.deadLetters.count(spec.name)).toEqual({ total: 2, pending: 2 }),
        wait,
      );
      const [first, second] = await bus.deadLetters.list(spec.name, { limit: 10 });
      expect(first).toMatchObject({
        topic: spec.name,
        partition: 0,
        offset: '0',
        group: 'dl',
        key: 'k',
        value: 'bad-1',
      });
      expect(first).toMatchObject({ error: 'invalid payload', failure: 'permanent', headers: { h: 'bad-1' } });
      expect(first?.replayed).toBe(false);
      expect(first?.deadLetteredAt).toBeGreaterThan(Date.now() - 60_000);
      expect(second).toMatchObject({ offset: '2', value: 'bad-2', replayed: false });
      const [a, b] = [first?.dlqOffset ?? '', second?.dlqOffset ?? ''];
      expect(await bus.deadLetters.list(spec.name, { from: b, limit: 5 })).toEqual([second]);
      expect(await bus.deadLetters.list(spec.name, { limit: 1 })).toEqual([first]);

      expect(await bus.deadLetters.replay(spec.name, { offsets: [a, '999'] })).toEqual({
        replayed: [a],
        alreadyReplayed: [],
        notFound: ['999'],
      });
      await eventually(() => expect(handled.map((m) => m.value)).toEqual(['ok', 'bad-1']), wait);
      expect(handled[1]?.headers).toEqual({ h: 'bad-1', 'x-replayed-from': a });
      expect(await bus.deadLetters.replay(spec.name, 'all')).toEqual({
        replayed: [b],
        alreadyReplayed: [a],
        notFound: [],
      });
      expect(await bus.deadLetters.replay(spec.name, { offsets: { from: a, to: b } })).toEqual({
        replayed: [],
        alreadyReplayed: [a, b],
        notFound: [],
      });
      expect(await bus.deadLetters.count(spec.name)).toEqual({ total: 2, pending: 0 });
      expect((await bus.deadLetters.list(spec.name, { limit: 10 })).map((d) => d.replayed)).toEqual([true, true]);
      const log: string[] = [];
      subs.push(await bus.replay(spec.name, (m) => log.push(m.value)));
      expect(log).toEqual(['bad-1', 'ok', 'bad-2', 'bad-1', 'bad-2']);
    });

    it('replays a record dead-lettered by several groups once: each group sees it once more, not once per letter', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      const seen: Record<string, string[]> = { 'fan-1': [], 'fan-2': [] };
      for (const group of ['fan-1', 'fan-2'] as const) {
        await subscribe({
          group,
          topic: spec.name,
          handler: async (batch) => {
            seen[group]?.push(...batch.map((m) => m.value));
            if (batch.some((m) => m.value === 'poison')) throw permanentError();
          },
        });
      }
      await bus.publish(spec.name, [msg('k', 'poison')]);
      await eventually(async () => expect((await bus.deadLetters.count(spec.name)).total).toBe(2), wait);
      const letters = await bus.deadLetters.list(spec.name, { limit: 10 });
      expect(letters.map((d) => d.group).sort()).toEqual(['fan-1', 'fan-2']);
      expect(await bus.deadLetters.replay(spec.name, 'all')).toEqual({
        replayed: letters.map((d) => d.dlqOffset),
        alreadyReplayed: [],
        notFound: [],
      });
      // Still poison: each group dead-letters the one replayed copy again, and nothing replays it by itself.
      await eventually(
        async () => expect(await bus.deadLetters.count(spec.name)).toEqual({ total: 4, pending: 2 }),
        wait,
      );
      await bus.publish(spec.name, [msg('k', 'after')]);
      await eventually(() => expect([seen['fan-1']?.at(-1), seen['fan-2']?.at(-1)]).toEqual(['after', 'after']), wait);
      expect(seen).toEqual({ 'fan-1': ['poison', 'poison', 'after'], 'fan-2': ['poison', 'poison', 'after'] });
      expect((await bus.deadLetters.count(spec.name)).total).toBe(4);
    });

    it('a topic without dead letters counts and lists none', async () => {
      const spec = topicSpec(2);
      await bus.ensureTopics([spec]);
      expect(await bus.deadLetters.count(spec.name)).toEqual({ total: 0, pending: 0 });
      expect(await bus.deadLetters.list(spec.name, { limit: 10 })).toEqual([]);
      expect(await bus.deadLetters.replay(spec.name, 'all')).toEqual({
        replayed: [],
        alreadyReplayed: [],
        notFound: [],
      });
    });

    it('stop() lets the batch in flight finish and commits it, so a new member does not see it again', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'slow')]);
      let release: () => void = () => {};
      let entered: () => void = () => {};
      const inHandler = new Promise<void>((r) => {
        entered = r;
      });
      const handled: string[] = [];
      const slow = await bus.subscribe({
        group: 'drain',
        topic: spec.name,
        handler: async (batch) => {
          entered();
          await new Promise<void>((r) => {
            release = r;
          });
          handled.push(...batch.map((m) => m.value));
        },
      });
      await inHandler;
      const stopping = slow.stop();
      setTimeout(() => release(), 100);
      await stopping;
      expect(handled).toEqual(['slow']);
      await bus.publish(spec.name, [msg('k', 'next')]);
      const after: string[] = [];
      await subscribe({
        group: 'drain',
        topic: spec.name,
        handler: async (b) => void after.push(...b.map((m) => m.value)),
      });
      await eventually(() => expect(after).toEqual(['next']), wait);
    });

    it('starts a new group at the end when fromBeginning is false: it gets what was published once subscribe() resolved', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'old')]);
      const seen: string[] = [];
      await subscribe({
        group: 'latest',
        topic: spec.name,
        fromBeginning: false,
        handler: async (b) => void seen.push(...b.map((m) => m.value)),
      });
      await bus.publish(spec.name, [msg('k', 'new')]);
      await eventually(() => expect(seen).toEqual(['new']), wait);
    });

    it('keeps a new group’s start for every member: one subscribing later gets what the first never consumed', async () => {
      const spec = topicSpec(1);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('k', 'before the group')]);
      const first: string[] = [];
      const early = await bus.subscribe({
        group: 'late-member',
        topic: spec.name,
        fromBeginning: false,
        handler: async (b) => void first.push(...b.map((m) => m.value)),
      });
      // The first member goes away before it consumed (and so committed) anything; records keep arriving.
      await early.stop();
      await bus.publish(spec.name, [msg('k', 'a'), msg('k', 'b')]);
      const second: string[] = [];
      await subscribe({
        group: 'late-member',
        topic: spec.name,
        fromBeginning: false,
        handler: async (b) => void second.push(...b.map((m) => m.value)),
      });
      await bus.publish(spec.name, [msg('k', 'c')]);
      await eventually(() => expect([...first, ...second]).toEqual(['a', 'b', 'c']), wait);
    });

    it('replay() has passed every existing record when it resolves, keeps the latest per key, and follows new ones', async () => {
      const spec = topicSpec(3, true);
      await bus.ensureTopics([spec]);
      await bus.publish(spec.name, [msg('x', 'x1'), msg('y', 'y1'), msg('x', 'x2')]);
      const view = new Map<string, string>();
      subs.push(await bus.replay(spec.name, (m) => view.set(m.key, m.value)));
      expect(Object.fromEntries(view)).toEqual({ x: 'x2', y: 'y1' });
      await bus.publish(spec.name, [msg('y', 'y2')]);
      await eventually(() => expect(view.get('y')).toBe('y2'), wait);
    });

    replayFromCases(it, { bus: () => bus, subs, wait });

    it('replay() of an empty topic resolves at once', async () => {
      const spec = topicSpec(2, true);
      await bus.ensureTopics([spec]);
      const seen: BusMessage[] = [];
      subs.push(await bus.replay(spec.name, (m) => seen.push(m)));
      expect(seen).toEqual([]);
    });

    it('lag() counts what each group has not consumed per partition, 0 once caught up, and skips unknown topics', async () => {
      const spec = topicSpec(2);
      await bus.ensureTopics([spec]);
      const topic = spec.name as ConsumerGroupSpec['topic'];
      const groups: ConsumerGroupSpec[] = [{ group: 'lag-reader', topic }];
      const total = async (g = groups) => (await bus.lag(g)).reduce((n, r) => n + r.lag, 0);
      await bus.publish(
        spec.name,
        Array.from({ length: 6 }, (_, i) => msg(`k${i}`, String(i))),
      );
      const before = await bus.lag(groups);
      expect(before.map((r) => [r.group, r.topic, r.partition, r.committed])).toEqual([
        ['lag-reader', spec.name, 0, null],
        ['lag-reader', spec.name, 1, null],
      ]);
      expect(before.reduce((n, r) => n + Number(r.end), 0)).toBe(6);
      expect(await total()).toBe(6);
      let handled = 0;
      const s = await subscribe({
        group: 'lag-reader',
        topic: spec.name,
        handler: async (b) => {
          handled += b.length;
        },
      });
      await eventually(async () => expect(await total()).toBe(0), wait);
      expect(handled).toBe(6);
      await s.stop();
      await bus.publish(spec.name, [msg('k1', 'a'), msg('k2', 'b'), msg('k3', 'c')]);
      const after = await bus.lag(groups);
      expect(after.reduce((n, r) => n + r.lag, 0)).toBe(3);
      for (const r of after) expect(Number(r.end) - Number(r.committed)).toBe(r.lag);
      expect(
        await bus.lag([{ group: 'lag-reader', topic: `${spec.name}.missing` as ConsumerGroupSpec['topic'] }]),
      ).toEqual([]);
    });

    it('ping() resolves while the log is reachable', async () => {
      await expect(bus.ping()).resolves.toBeUndefined();
    });

    it('reports publish latency, batch sizes, lag per group and partition (back to 0 once caught up) and dead letters', async () => {
      const metrics = createMetrics({ defaults: false });
      const measured = await target.create({ metrics: metrics.bus });
      const spec = topicSpec(2);
      await measured.ensureTopics([spec]);
      await measured.publish(
        spec.name,
        Array.from({ length: 20 }, (_, i) => msg(`k${i}`, String(i))),
      );
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const handled = new Set<string>();
      const sub = await measured.subscribe({
        group: 'measured',
        topic: spec.name,
        maxBatchSize: 5,
        retry: fastRetry,
        handler: async (batch) => {
          await gate;
          if (batch.some((m) => m.value === '13')) throw permanentError();
          for (const m of batch) handled.add(m.value);
        },
      });
      const scrape = async () => parsePrometheusText((await metrics.exposition()).body);
      const lag = { group: 'measured', topic: spec.name };
      // Held in the handler: what is fetched and not yet processed shows as lag.
      await eventually(
        async () => expect(sumOf(await scrape(), 'formgate_consumer_lag', lag)).toBeGreaterThan(0),
        wait,
      );
      release();
      await eventually(() => expect(handled.size).toBe(19), wait);
      await eventually(async () => {
        const samples = await scrape();
        const partitions = samplesOf(samples, 'formgate_consumer_lag', lag);
        expect(partitions.map((p) => p.labels.partition).sort()).toEqual(['0', '1']);
        expect(partitions.map((p) => p.value)).toEqual([0, 0]);
        expect(sumOf(samples, 'formgate_dead_letters_total', lag)).toBe(1);
      }, wait);
      const samples = await scrape();
      expect(sumOf(samples, 'formgate_bus_publish_duration_seconds_count', { topic: spec.name })).toBe(1);
      expect(sumOf(samples, 'formgate_bus_batch_size_sum', { topic: spec.name })).toBeGreaterThanOrEqual(20);
      expect(sumOf(samples, 'formgate_bus_batch_size_count', { topic: spec.name })).toBeGreaterThanOrEqual(4);
      await sub.stop();
      await measured.close();
    });

    it('ensureTopics is idempotent and publishing to a topic that was never created fails', async () => {
      const spec = topicSpec();
      await bus.ensureTopics([spec]);
      await bus.ensureTopics([spec]);
      await expect(bus.publish(`missing.${randomUUID().slice(0, 8)}`, [msg('k', 'v')])).rejects.toThrow();
    });
  });
}
