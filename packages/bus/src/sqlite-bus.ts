import { EventEmitter } from 'node:events';
import type { TopicSpec } from '@formgate/contracts';
import { dlqTopic } from '@formgate/contracts';
import { createGroupCommit, OverloadedError, type SqliteDb } from '@formgate/store/sqlite';
import type { Statement } from 'better-sqlite3';
import { DeliveryAborted, deliver, partitionFor } from './delivery.ts';
import {
  type BusMessage,
  BusUnavailableError,
  DEFAULT_RETRY,
  type EventBus,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
} from './event-bus.ts';

interface Row {
  partition: number;
  offset: number;
  key: string;
  value: string;
  headers: string;
  ts: number;
}

interface Append {
  topic: string;
  messages: OutgoingMessage[];
}

export interface SqliteBusOptions {
  /** Records of non-compacted topics older than this are deleted. */
  retentionMs?: number;
  maxPendingPublishes?: number;
  /** How often an idle consumer re-reads its partition even without a wake-up (safety net). */
  idlePollMs?: number;
  /**
   * How long a consumer that has caught up waits before its next fetch (Kafka's `fetch.max.wait.ms`). Without it a
   * busy topic is consumed one group commit at a time, and every batch pays its transaction, fsync and offset commit.
   */
  consumerLingerMs?: number;
  onError?: (err: unknown, context: string) => void;
}

// Most records carry no headers: skip JSON for them both ways.
const NO_HEADERS = '{}';
const encodeHeaders = (headers: Record<string, string> | undefined) =>
  headers && Object.keys(headers).length > 0 ? JSON.stringify(headers) : NO_HEADERS;
const decodeHeaders = (raw: string): Record<string, string> =>
  raw === NO_HEADERS ? {} : (JSON.parse(raw) as Record<string, string>);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS topics (name TEXT PRIMARY KEY, partitions INTEGER NOT NULL, compacted INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (
  topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, headers TEXT NOT NULL, ts INTEGER NOT NULL,
  PRIMARY KEY (topic, partition, offset)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS group_offsets (
  group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL,
  PRIMARY KEY (group_id, topic, partition)
) WITHOUT ROWID;
`;

/**
 * The embedded event log: an append-only SQLite table with Kafka's semantics — partitions by key, consumer
 * groups with committed offsets, at-least-once delivery, retries then `<topic>.dlq`, compacted topics. Publishes
 * are group-committed (one transaction per event-loop turn). One process owns the database file.
 */
export function createSqliteBus(db: SqliteDb, opts: SqliteBusOptions = {}): EventBus {
  db.exec(SCHEMA);
  const topics = new Map<string, { partitions: number; compacted: boolean }>();
  const nextOffset = new Map<string, number>(); // `${topic}/${partition}` → next offset
  const appendsSinceCompaction = new Map<string, number>();
  const wake = new EventEmitter().setMaxListeners(0);
  const subscriptions = new Set<Subscription>();
  const groups = new Map<string, GroupMember[]>();
  const idlePollMs = opts.idlePollMs ?? 1_000;
  const lingerMs = opts.consumerLingerMs ?? 20;
  const onError = opts.onError ?? (() => {});

  const insert = db.prepare(
    'INSERT INTO records (topic, partition, offset, key, value, headers, ts) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const maxOffset = db.prepare('SELECT MAX(offset) AS o FROM records WHERE topic = ? AND partition = ?');
  const minOffset = db.prepare('SELECT MIN(offset) AS o FROM records WHERE topic = ? AND partition = ?');
  const fetchByLimit = new Map<number, Statement<[string, number, number]>>();
  /**
   * Up to `limit` records from `offset` on. The limit is written into the SQL, one statement per limit: with `LIMIT ?`
   * SQLite re-prepares the statement at every bind (its planner looks at the bound limit), several µs per fetch.
   */
  const fetch = (topic: string, partition: number, offset: number, limit: number): Row[] => {
    let statement = fetchByLimit.get(limit);
    if (!statement) {
      // Checked again here because it is written into the SQL.
      if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`invalid fetch size ${limit}`);
      statement = db.prepare<[string, number, number]>(
        `SELECT partition, offset, key, value, headers, ts FROM records WHERE topic = ? AND partition = ? AND offset >= ? ORDER BY offset LIMIT ${limit}`,
      );
      fetchByLimit.set(limit, statement);
    }
    return statement.all(topic, partition, offset) as Row[];
  };
  const readCommitted = db.prepare(
    'SELECT offset FROM group_offsets WHERE group_id = ? AND topic = ? AND partition = ?',
  );
  const writeCommitted = db.prepare(
    'INSERT INTO group_offsets (group_id, topic, partition, offset) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET offset = excluded.offset',
  );

  const loadTopics = () => {
    for (const t of db.prepare('SELECT name, partitions, compacted FROM topics').all() as {
      name: string;
      partitions: number;
      compacted: number;
    }[]) {
      topics.set(t.name, { partitions: t.partitions, compacted: t.compacted === 1 });
      for (let p = 0; p < t.partitions; p++) {
        const o = (maxOffset.get(t.name, p) as { o: number | null }).o;
        nextOffset.set(`${t.name}/${p}`, o === null ? 0 : o + 1);
      }
    }
  };
  loadTopics();

  const compact = (topic: string) => {
    // Keep the newest record of every key (what Kafka's log cleaner guarantees, done eagerly).
    db.prepare(
      `DELETE FROM records WHERE topic = ? AND offset NOT IN (
         SELECT MAX(offset) FROM records WHERE topic = ? GROUP BY partition, key)`,
    ).run(topic, topic);
  };

  // Each append's result is the set of partitions it wrote to, so only their consumers are woken.
  const writer = createGroupCommit<Append, Set<number>>(
    db,
    (appends) => {
      const now = Date.now();
      const touched = new Map<string, number>();
      const written = appends.map(({ topic, messages }) => {
        const spec = topics.get(topic);
        if (!spec) throw new Error(`unknown topic ${topic}`);
        const partitions = new Set<number>();
        for (const m of messages) {
          const partition = partitionFor(m.key, spec.partitions);
          const slot = `${topic}/${partition}`;
          const offset = touched.get(slot) ?? nextOffset.get(slot) ?? 0;
          insert.run(topic, partition, offset, m.key, m.value, encodeHeaders(m.headers), now);
          touched.set(slot, offset + 1);
          partitions.add(partition);
        }
        return partitions;
      });
      for (const [slot, next] of touched) nextOffset.set(slot, next);
      return written;
    },
    { maxPending: opts.maxPendingPublishes ?? 50_000 },
  );

  const afterAppend = (topic: string, partitions: Set<number>, count: number) => {
    wake.emit(topic);
    for (const p of partitions) wake.emit(`${topic}/${p}`);
    if (!topics.get(topic)?.compacted) return;
    const n = (appendsSinceCompaction.get(topic) ?? 0) + count;
    appendsSinceCompaction.set(topic, n >= 1_000 ? 0 : n);
    if (n >= 1_000) compact(topic);
  };

  const publish = async (topic: string, messages: OutgoingMessage[]) => {
    if (messages.length === 0) return;
    if (!topics.has(topic)) throw new Error(`unknown topic ${topic}`);
    let partitions: Set<number>;
    try {
      partitions = await writer.submit({ topic, messages });
    } catch (err) {
      if (err instanceof OverloadedError) throw new BusUnavailableError('event log is overloaded', { cause: err });
      throw new BusUnavailableError('event log write failed', { cause: err });
    }
    afterAppend(topic, partitions, messages.length);
  };

  const toMessage = (topic: string, r: Row): BusMessage => ({
    topic,
    partition: r.partition,
    offset: String(r.offset),
    key: r.key,
    value: r.value,
    headers: decodeHeaders(r.headers),
    timestamp: r.ts,
  });

  /**
   * Waits until `channel` (a topic, or `topic/partition`) gets a new record, `ms` elapse, or `signal` aborts; with
   * no channel, only for the time.
   */
  const waitFor = (channel: string | null, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        if (channel) wake.off(channel, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (channel) wake.on(channel, done);
      signal.addEventListener('abort', done);
    });
  const waitForRecords = (channel: string, signal: AbortSignal) => waitFor(channel, idlePollMs, signal);

  class GroupMember {
    private controller = new AbortController();
    private loops: Promise<void>[] = [];
    constructor(readonly options: SubscribeOptions) {}

    start(partitions: number[]) {
      this.controller = new AbortController();
      this.loops = partitions.map((p) => this.run(p, this.controller.signal));
    }

    async halt() {
      this.controller.abort();
      await Promise.all(this.loops);
      this.loops = [];
    }

    private startOffset(partition: number): number {
      const { group, topic, fromBeginning = true } = this.options;
      const committed = readCommitted.get(group, topic, partition) as { offset: number } | undefined;
      if (committed) return committed.offset;
      if (fromBeginning) return (minOffset.get(topic, partition) as { o: number | null }).o ?? 0;
      return nextOffset.get(`${topic}/${partition}`) ?? 0;
    }

    private async run(partition: number, signal: AbortSignal) {
      const { group, topic, handler } = this.options;
      const ctx = {
        group,
        policy: this.options.retry ?? DEFAULT_RETRY,
        dlq: { publish },
        isStopping: () => signal.aborted,
        onDeadLetter: (m: BusMessage, e: unknown) => onError(e, `dead-lettered ${topic}/${m.partition}@${m.offset}`),
      };
      const maxBatch = this.options.maxBatchSize ?? 500;
      const channel = `${topic}/${partition}`;
      let offset = this.startOffset(partition);
      while (!signal.aborted) {
        const rows = fetch(topic, partition, offset, maxBatch);
        if (rows.length === 0) {
          await waitForRecords(channel, signal);
          continue;
        }
        try {
          await deliver(
            rows.map((r) => toMessage(topic, r)),
            handler,
            ctx,
          );
        } catch (err) {
          if (err instanceof DeliveryAborted) return;
          onError(err, `consumer ${group} on ${channel}`);
          await waitForRecords(channel, signal);
          continue;
        }
        offset = (rows.at(-1) as Row).offset + 1;
        writeCommitted.run(group, topic, partition, offset);
        // Caught up: let the next records accumulate into one batch instead of taking them a tick at a time.
        if (rows.length < maxBatch && lingerMs > 0) await waitFor(null, lingerMs, signal);
      }
    }
  }

  /** Splits a group's partitions among its members in this process, like Kafka's range assignor. */
  const rebalance = async (group: string) => {
    const members = groups.get(group) ?? [];
    await Promise.all(members.map((m) => m.halt()));
    members.forEach((member, index) => {
      const partitions = topics.get(member.options.topic)?.partitions ?? 0;
      const mine = Array.from({ length: partitions }, (_, p) => p).filter((p) => p % members.length === index);
      member.start(mine);
    });
  };

  const track = (sub: Subscription) => {
    subscriptions.add(sub);
    return sub;
  };

  const retentionTimer = setInterval(() => {
    const cutoff = Date.now() - (opts.retentionMs ?? 7 * 24 * 3600_000);
    for (const [name, spec] of topics) {
      if (!spec.compacted) db.prepare('DELETE FROM records WHERE topic = ? AND ts < ?').run(name, cutoff);
    }
  }, 10 * 60_000);
  retentionTimer.unref();

  return {
    publish,

    async ensureTopics(specs: readonly TopicSpec[]) {
      const upsert = db.prepare('INSERT OR IGNORE INTO topics (name, partitions, compacted) VALUES (?, ?, ?)');
      db.transaction(() => {
        for (const s of specs) {
          upsert.run(s.name, s.partitions, s.compacted ? 1 : 0);
          upsert.run(dlqTopic(s.name), 1, 0);
        }
      })();
      loadTopics();
      for (const s of specs) if (s.compacted) compact(s.name);
    },

    async subscribe(options) {
      if (!topics.has(options.topic)) throw new Error(`unknown topic ${options.topic}`);
      const { maxBatchSize } = options;
      if (maxBatchSize !== undefined && !(Number.isSafeInteger(maxBatchSize) && maxBatchSize > 0)) {
        throw new Error(`maxBatchSize must be a positive integer, not ${maxBatchSize}`);
      }
      const member = new GroupMember(options);
      const members = groups.get(options.group) ?? [];
      groups.set(options.group, [...members, member]);
      await rebalance(options.group);
      const sub: Subscription = {
        async stop() {
          if (!subscriptions.delete(sub)) return;
          await member.halt();
          groups.set(
            options.group,
            (groups.get(options.group) ?? []).filter((m) => m !== member),
          );
          await rebalance(options.group);
        },
      };
      return track(sub);
    },

    async replay(topic, onMessage) {
      const spec = topics.get(topic);
      if (!spec) throw new Error(`unknown topic ${topic}`);
      const controller = new AbortController();
      const positions = Array.from({ length: spec.partitions }, () => 0);
      const catchUp = () => {
        for (let p = 0; p < spec.partitions; p++) {
          for (;;) {
            const rows = fetch(topic, p, positions[p] ?? 0, 1_000);
            if (rows.length === 0) break;
            for (const r of rows) onMessage(toMessage(topic, r));
            positions[p] = (rows.at(-1) as Row).offset + 1;
          }
        }
      };
      catchUp();
      const follow = (async () => {
        while (!controller.signal.aborted) {
          await waitForRecords(topic, controller.signal);
          if (!controller.signal.aborted) catchUp();
        }
      })();
      const sub: Subscription = {
        async stop() {
          subscriptions.delete(sub);
          controller.abort();
          await follow;
        },
      };
      return track(sub);
    },

    async close() {
      clearInterval(retentionTimer);
      await Promise.all([...subscriptions].map((s) => s.stop()));
      await writer.drain();
    },
  };
}
