import type { TopicSpec } from '@formgate/contracts';
import { dlqReplayedTopic, dlqTopic } from '@formgate/contracts';
import { runSqliteMigrations, type SqliteDb, type SqliteMigration } from '@formgate/store/sqlite';
import type { Statement } from 'better-sqlite3';
import { partitionFor } from '../delivery.ts';
import { type BusMessage, ERASED_HEADER, type EraseMatch, type OutgoingMessage } from '../event-bus.ts';

export interface Row {
  partition: number;
  offset: number;
  key: string;
  value: string;
  headers: string;
  ts: number;
}

export interface TopicInfo {
  partitions: number;
  compacted: boolean;
}

/** The log's schema, as numbered migrations (ADR 72); run when the log is opened. */
const LOG_MIGRATIONS: SqliteMigration[] = [
  {
    version: 1,
    name: 'topics, records and group offsets',
    up: (db) =>
      db.exec(`
CREATE TABLE topics (name TEXT PRIMARY KEY, partitions INTEGER NOT NULL, compacted INTEGER NOT NULL);
CREATE TABLE records (
  topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT NOT NULL, headers TEXT NOT NULL, ts INTEGER NOT NULL,
  PRIMARY KEY (topic, partition, offset)
) WITHOUT ROWID;
CREATE TABLE group_offsets (
  group_id TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL,
  PRIMARY KEY (group_id, topic, partition)
) WITHOUT ROWID;
`),
  },
];

// Most records carry no headers: skip JSON for them both ways.
const NO_HEADERS = '{}';
const encodeHeaders = (headers: Record<string, string> | undefined) =>
  headers && Object.keys(headers).length > 0 ? JSON.stringify(headers) : NO_HEADERS;
const decodeHeaders = (raw: string): Record<string, string> =>
  raw === NO_HEADERS ? {} : (JSON.parse(raw) as Record<string, string>);

export const toMessage = (topic: string, r: Row): BusMessage => ({
  topic,
  partition: r.partition,
  offset: String(r.offset),
  key: r.key,
  value: r.value,
  headers: decodeHeaders(r.headers),
  timestamp: r.ts,
});

/** The tables of the embedded log and the in-memory state derived from them (topics and next offsets). */
export interface Log {
  readonly topics: ReadonlyMap<string, TopicInfo>;
  /** Up to `limit` records of one partition from `offset` on, in offset order. */
  fetch(topic: string, partition: number, offset: number, limit: number): Row[];
  /**
   * Inserts `messages` at the end of their partitions, inside the caller's transaction; the new ends go to `ends`
   * (`topic/partition` → next offset) until `advance(ends)` once it committed. Returns the partitions written.
   */
  append(topic: string, messages: OutgoingMessage[], now: number, ends: Map<string, number>): Set<number>;
  advance(ends: Map<string, number>): void;
  firstOffset(topic: string, partition: number): number;
  /** The first retained offset (the next one when empty) and the next offset of one partition. */
  bounds(topic: string, partition: number): { low: number; high: number };
  nextOffset(topic: string, partition: number): number;
  /** The group's committed offset: the newest `commit`, written or still pending. */
  committed(group: string, topic: string, partition: number): number | undefined;
  /**
   * Commits a group's offset. Group-committed: every offset committed in one event-loop turn is written in one
   * transaction at its end (one fsync instead of one per consumer batch). A crash before that write only makes the
   * group read those records again, which every consumer tolerates (at-least-once, idempotent handlers).
   */
  commit(group: string, topic: string, partition: number, offset: number): void;
  /** Writes the pending offset commits now (before closing the database). */
  flushCommits(): void;
  ensureTopics(specs: readonly TopicSpec[]): void;
  /** Keeps the newest record of every key (what Kafka's log cleaner guarantees, done eagerly). */
  compact(topic: string): void;
  /**
   * Deletes records of non-compacted topics written before `cutoff` (or before `now` − the topic's own shorter
   * `retentionMs`), except the newest of each partition: the next offset is derived from it when the log is opened
   * again, and must never go back below committed offsets.
   */
  deleteOlderThan(cutoff: number, now?: number): void;
  /**
   * Empties the records of `topic`'s `partition` with offsets in [`from`, `to`) whose value holds one of
   * `match.holding` and not `match.unless`, and marks them erased (`ERASED_HEADER`); their offsets stay, so offsets
   * never go back. Answers how many it erased and the oldest write time in the range (null: none). One short
   * transaction: `EventBus.eraseRecords` walks a partition chunk by chunk, newest first, between appends.
   */
  eraseRange(
    topic: string,
    partition: number,
    from: number,
    to: number,
    match: EraseMatch,
  ): { erased: number; oldest: number | null };
}

/**
 * Up to `limit` records from `offset` on. The limit is written into the SQL, one statement per limit: with `LIMIT ?`
 * SQLite re-prepares the statement at every bind (its planner looks at the bound limit), several µs per fetch.
 */
function fetcher(db: SqliteDb) {
  const byLimit = new Map<number, Statement<[string, number, number]>>();
  return (topic: string, partition: number, offset: number, limit: number): Row[] => {
    let statement = byLimit.get(limit);
    if (!statement) {
      // Checked again here because it is written into the SQL.
      if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`invalid fetch size ${limit}`);
      statement = db.prepare<[string, number, number]>(
        `SELECT partition, offset, key, value, headers, ts FROM records WHERE topic = ? AND partition = ? AND offset >= ? ORDER BY offset LIMIT ${limit}`,
      );
      byLimit.set(limit, statement);
    }
    return statement.all(topic, partition, offset) as Row[];
  };
}

function prepare(db: SqliteDb) {
  return {
    insert: db.prepare(
      'INSERT INTO records (topic, partition, offset, key, value, headers, ts) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    maxOffset: db.prepare('SELECT MAX(offset) AS o FROM records WHERE topic = ? AND partition = ?'),
    minOffset: db.prepare('SELECT MIN(offset) AS o FROM records WHERE topic = ? AND partition = ?'),
    readCommitted: db.prepare('SELECT offset FROM group_offsets WHERE group_id = ? AND topic = ? AND partition = ?'),
    writeCommitted: db.prepare(
      'INSERT INTO group_offsets (group_id, topic, partition, offset) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET offset = excluded.offset',
    ),
    upsertTopic: db.prepare('INSERT OR IGNORE INTO topics (name, partitions, compacted) VALUES (?, ?, ?)'),
    compact: db.prepare(
      `DELETE FROM records WHERE topic = ? AND offset NOT IN (
         SELECT MAX(offset) FROM records WHERE topic = ? GROUP BY partition, key)`,
    ),
    deleteOlderThan: db.prepare('DELETE FROM records WHERE topic = ? AND partition = ? AND ts < ? AND offset < ?'),
    // Primary key (topic, partition, offset): one chunk of a partition.
    erase: db.prepare(
      `UPDATE records SET value = '', headers = ? WHERE topic = ? AND partition = ? AND offset >= ? AND offset < ?
       AND instr(value, ?) > 0 AND instr(value, ?) = 0`,
    ),
    oldest: db.prepare(
      'SELECT MIN(ts) AS ts FROM records WHERE topic = ? AND partition = ? AND offset >= ? AND offset < ?',
    ),
  };
}

interface PendingCommit {
  group: string;
  topic: string;
  partition: number;
  offset: number;
}
const commitSlot = (group: string, topic: string, partition: number) => `${group}\0${topic}\0${partition}`;

class SqliteLog implements Log {
  readonly topics = new Map<string, TopicInfo>();
  /** Topics with their own retention (`TopicSpec.retentionMs`), as this process ensured them. */
  private readonly retention = new Map<string, number>();
  readonly fetch: Log['fetch'];
  /** `${topic}/${partition}` → next offset. */
  private readonly next = new Map<string, number>();
  private readonly sql: ReturnType<typeof prepare>;
  /** `commitSlot` → the newest offset committed and not yet written (see `commit`). */
  private readonly pendingCommits = new Map<string, PendingCommit>();
  private flushScheduled = false;
  private readonly writeCommits: (commits: PendingCommit[]) => void;

  constructor(
    private readonly db: SqliteDb,
    private readonly onCommitError: (err: unknown) => void,
  ) {
    runSqliteMigrations(db, 'event-log', LOG_MIGRATIONS);
    this.sql = prepare(db);
    this.fetch = fetcher(db);
    this.writeCommits = db.transaction((commits: PendingCommit[]) => {
      for (const c of commits) this.sql.writeCommitted.run(c.group, c.topic, c.partition, c.offset);
    });
    this.loadTopics();
  }

  private loadTopics() {
    const rows = this.db.prepare('SELECT name, partitions, compacted FROM topics').all() as {
      name: string;
      partitions: number;
      compacted: number;
    }[];
    for (const t of rows) {
      this.topics.set(t.name, { partitions: t.partitions, compacted: t.compacted === 1 });
      for (let p = 0; p < t.partitions; p++) {
        const o = (this.sql.maxOffset.get(t.name, p) as { o: number | null }).o;
        this.next.set(`${t.name}/${p}`, o === null ? 0 : o + 1);
      }
    }
  }

  append(topic: string, messages: OutgoingMessage[], now: number, ends: Map<string, number>) {
    const spec = this.topics.get(topic);
    if (!spec) throw new Error(`unknown topic ${topic}`);
    const partitions = new Set<number>();
    for (const m of messages) {
      const partition = partitionFor(m.key, spec.partitions);
      const slot = `${topic}/${partition}`;
      const offset = ends.get(slot) ?? this.next.get(slot) ?? 0;
      this.sql.insert.run(topic, partition, offset, m.key, m.value, encodeHeaders(m.headers), now);
      ends.set(slot, offset + 1);
      partitions.add(partition);
    }
    return partitions;
  }

  advance(ends: Map<string, number>) {
    for (const [slot, offset] of ends) this.next.set(slot, offset);
  }

  firstOffset(topic: string, partition: number) {
    return (this.sql.minOffset.get(topic, partition) as { o: number | null }).o ?? 0;
  }

  bounds(topic: string, partition: number) {
    const high = this.nextOffset(topic, partition);
    return { low: (this.sql.minOffset.get(topic, partition) as { o: number | null }).o ?? high, high };
  }

  nextOffset(topic: string, partition: number) {
    return this.next.get(`${topic}/${partition}`) ?? 0;
  }

  committed(group: string, topic: string, partition: number) {
    const pending = this.pendingCommits.get(commitSlot(group, topic, partition));
    if (pending) return pending.offset;
    return (this.sql.readCommitted.get(group, topic, partition) as { offset: number } | undefined)?.offset;
  }

  commit(group: string, topic: string, partition: number, offset: number) {
    this.pendingCommits.set(commitSlot(group, topic, partition), { group, topic, partition, offset });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      try {
        this.flushCommits();
      } catch (err) {
        // Kept pending: the next commit's flush writes them (a group that restarts meanwhile reads again).
        this.onCommitError(err);
      }
    });
  }

  flushCommits() {
    if (this.pendingCommits.size === 0) return;
    // Synchronous: nothing can commit between the write and the clear.
    this.writeCommits([...this.pendingCommits.values()]);
    this.pendingCommits.clear();
  }

  ensureTopics(specs: readonly TopicSpec[]) {
    this.db.transaction(() => {
      for (const s of specs) {
        if (s.retentionMs !== undefined) this.retention.set(s.name, s.retentionMs);
        this.sql.upsertTopic.run(s.name, s.partitions, s.compacted ? 1 : 0);
        this.sql.upsertTopic.run(dlqTopic(s.name), 1, 0);
        this.sql.upsertTopic.run(dlqReplayedTopic(s.name), 1, 1);
      }
    })();
    this.loadTopics();
    for (const s of specs) if (s.compacted) this.compact(s.name);
  }

  compact(topic: string) {
    this.sql.compact.run(topic, topic);
  }

  eraseRange(topic: string, partition: number, from: number, to: number, { holding, unless }: EraseMatch) {
    const headers = encodeHeaders({ [ERASED_HEADER]: '1' });
    // `instr(value, '')` is 1 for every value: an absent `unless` is a string no record holds.
    const kept = unless || '\u0000';
    const erase = this.db.transaction(() => {
      let erased = 0;
      for (const needle of holding) {
        if (needle !== '') erased += this.sql.erase.run(headers, topic, partition, from, to, needle, kept).changes;
      }
      const { ts } = this.sql.oldest.get(topic, partition, from, to) as { ts: number | null };
      return { erased, oldest: ts };
    });
    return erase.immediate();
  }

  deleteOlderThan(cutoff: number, now = Date.now()) {
    for (const [name, spec] of this.topics) {
      if (spec.compacted) continue;
      const own = this.retention.get(name);
      const before = own === undefined ? cutoff : Math.max(cutoff, now - own);
      for (let p = 0; p < spec.partitions; p++) {
        this.sql.deleteOlderThan.run(name, p, before, this.nextOffset(name, p) - 1);
      }
    }
  }
}

/** `onCommitError`: an offset write that failed (kept pending, retried with the next commit). */
export const openLog = (db: SqliteDb, onCommitError: (err: unknown) => void = () => {}): Log =>
  new SqliteLog(db, onCommitError);
