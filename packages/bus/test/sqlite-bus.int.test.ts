import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { BusMessage, EventBus, OutgoingMessage } from '../src/event-bus.ts';
import { createSqliteBus, type SqliteBusOptions } from '../src/sqlite/index.ts';
import { openLog } from '../src/sqlite/log.ts';
import { runBusContract } from './bus.contract.ts';

const openBus = (opts?: SqliteBusOptions) =>
  createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-bus-')), 'bus.db')), opts);

runBusContract({
  name: 'embedded (SQLite log)',
  create: async (options) => openBus(options),
  deliveryTimeoutMs: 5_000,
});

describe('embedded log: batching', () => {
  let bus: EventBus | undefined;
  afterEach(async () => {
    await bus?.close();
    bus = undefined;
  });

  const records = (n: number, key = 'k'): OutgoingMessage[] =>
    Array.from({ length: n }, (_, i) => ({ key, value: String(i) }));

  it('never hands a handler more than its maxBatchSize, whatever size other groups use', async () => {
    bus = openBus({ consumerLingerMs: 0 });
    await bus.ensureTopics([{ name: 'batching.sizes', partitions: 1, compacted: false }]);
    await bus.publish('batching.sizes', records(25));
    const sizes: Record<string, number[]> = { small: [], large: [] };
    for (const [group, maxBatchSize] of [
      ['small', 10],
      ['large', 20],
    ] as const) {
      await bus.subscribe({
        group,
        topic: 'batching.sizes',
        maxBatchSize,
        handler: async (batch) => void sizes[group]?.push(batch.length),
      });
    }
    await eventually(() => expect(sizes).toEqual({ small: [10, 10, 5], large: [20, 5] }));
  });

  it('refuses a maxBatchSize that is not a positive integer', async () => {
    bus = openBus();
    await bus.ensureTopics([{ name: 'batching.invalid', partitions: 1, compacted: false }]);
    for (const maxBatchSize of [0, -1, 2.5, Number.NaN]) {
      await expect(
        bus.subscribe({ group: 'invalid', topic: 'batching.invalid', maxBatchSize, handler: async () => {} }),
      ).rejects.toThrow('maxBatchSize');
    }
  });

  it('a consumer that has caught up takes what is published during its linger as one batch', async () => {
    bus = openBus({ consumerLingerMs: 1_000 });
    await bus.ensureTopics([{ name: 'batching.linger', partitions: 1, compacted: false }]);
    const batches: string[][] = [];
    await bus.subscribe({
      group: 'linger',
      topic: 'batching.linger',
      handler: async (batch) => void batches.push(batch.map((m) => m.value)),
    });
    await bus.publish('batching.linger', [{ key: 'k', value: 'first' }]);
    await eventually(() => expect(batches).toEqual([['first']]));
    // Five appends, each its own group commit, all while the consumer lingers after its first batch.
    for (const value of ['a', 'b', 'c', 'd', 'e']) await bus.publish('batching.linger', [{ key: 'k', value }]);
    await eventually(() => expect(batches).toEqual([['first'], ['a', 'b', 'c', 'd', 'e']]), 5_000);
  });

  it('wakes the consumer of the partition that got a record, without waiting for the idle poll', async () => {
    bus = openBus({ consumerLingerMs: 0, idlePollMs: 60_000 });
    await bus.ensureTopics([{ name: 'batching.wake', partitions: 4, compacted: false }]);
    const seen: string[] = [];
    await bus.subscribe({
      group: 'wake',
      topic: 'batching.wake',
      handler: async (batch) => void seen.push(...batch.map((m) => m.key)),
    });
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    for (const key of keys) {
      await bus.publish('batching.wake', [{ key, value: key }]);
      await eventually(() => expect(seen).toContain(key), 2_000);
    }
  });
});

describe('embedded log: retention', () => {
  it('keeps the newest record of each partition, so offsets go on after a reopen and a group misses nothing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fg-bus-')), 'bus.db');
    const topic = 'retention.t';
    const first = openSqlite(file);
    const before = createSqliteBus(first);
    await before.ensureTopics([{ name: topic, partitions: 1, compacted: false }]);
    await before.publish(
      topic,
      ['0', '1', '2'].map((value) => ({ key: 'k', value })),
    );
    const seen: string[] = [];
    const handler = async (batch: BusMessage[]) => void seen.push(...batch.map((m) => m.value));
    await before.subscribe({ group: 'kept', topic, handler });
    await eventually(() => expect(seen).toEqual(['0', '1', '2']));
    await before.close();
    first.close();

    const after = createSqliteBus(openSqlite(file), { retentionMs: 0 });
    await after.publish(topic, [{ key: 'k', value: 'new' }]);
    const retained: string[] = [];
    await (await after.replay(topic, (m) => retained.push(`${m.offset}:${m.value}`))).stop();
    expect(retained).toEqual(['2:2', '3:new']);
    await after.subscribe({ group: 'kept', topic, handler });
    await eventually(() => expect(seen).toEqual(['0', '1', '2', 'new']));
    await after.close();
  });
});

describe('embedded log: a topic with its own retention', () => {
  it('drops records older than the topic’s retentionMs, other topics keep the default', () => {
    const log = openLog(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-bus-')), 'bus.db')));
    log.ensureTopics([
      { name: 'short.t', partitions: 1, compacted: false, retentionMs: 60_000 },
      { name: 'long.t', partitions: 1, compacted: false },
    ]);
    const now = 10_000_000;
    for (const [ts, value] of [
      [now - 120_000, 'old'],
      [now - 90_000, 'older than a minute'],
      [now - 30_000, 'recent'],
    ] as const) {
      const ends = new Map<string, number>();
      for (const topic of ['short.t', 'long.t']) log.append(topic, [{ key: 'k', value }], ts, ends);
      log.advance(ends);
    }
    log.deleteOlderThan(now - 7 * 24 * 3600_000, now);
    expect(log.fetch('short.t', 0, 0, 10).map((r) => r.value)).toEqual(['recent']);
    expect(log.fetch('long.t', 0, 0, 10)).toHaveLength(3);
  });
});

describe('embedded log: consumer offsets are group-committed', () => {
  it('answers a commit at once, writes every commit of a turn in one transaction at its end, and keeps them', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fg-bus-')), 'bus.db');
    const db = openSqlite(file);
    const log = openLog(db);
    log.ensureTopics([{ name: 'offsets.t', partitions: 2, compacted: false }]);
    const stored = () =>
      db.prepare('SELECT group_id, partition, offset FROM group_offsets ORDER BY group_id, partition').all();
    log.commit('a', 'offsets.t', 0, 5);
    log.commit('b', 'offsets.t', 1, 7);
    log.commit('a', 'offsets.t', 0, 9);
    expect(log.committed('a', 'offsets.t', 0)).toBe(9);
    expect(stored()).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stored()).toEqual([
      { group_id: 'a', partition: 0, offset: 9 },
      { group_id: 'b', partition: 1, offset: 7 },
    ]);
    log.commit('b', 'offsets.t', 1, 8);
    log.flushCommits();
    db.close();
    const reopened = openLog(openSqlite(file));
    expect(reopened.committed('a', 'offsets.t', 0)).toBe(9);
    expect(reopened.committed('b', 'offsets.t', 1)).toBe(8);
  });
});
