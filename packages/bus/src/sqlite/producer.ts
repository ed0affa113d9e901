import { createGroupCommit, OverloadedError, type SqliteDb } from '@formgate/store/sqlite';
import { BusUnavailableError, type OutgoingMessage } from '../event-bus.ts';
import type { BusMetrics } from '../metrics.ts';
import type { Log } from './log.ts';
import type { Wakeups } from './wakeups.ts';

interface Append {
  topic: string;
  messages: OutgoingMessage[];
}

export interface Appender {
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Resolves when every queued append has been committed or failed. */
  drain(): Promise<void>;
}

const COMPACT_EVERY = 1_000;

/**
 * Appends through a group commit (one transaction per event-loop turn); after the commit it wakes the consumers
 * of the partitions written, and compacts a compacted topic every `COMPACT_EVERY` records.
 */
export function createAppender(
  db: SqliteDb,
  log: Log,
  wakeups: Wakeups,
  maxPending: number,
  metrics: BusMetrics,
): Appender {
  const appendsSinceCompaction = new Map<string, number>();
  // Each append's result is the set of partitions it wrote to, so only their consumers are woken.
  const writer = createGroupCommit<Append, Set<number>>(
    db,
    (appends) => {
      const now = Date.now();
      const ends = new Map<string, number>();
      const written = appends.map(({ topic, messages }) => log.append(topic, messages, now, ends));
      log.advance(ends);
      metrics.observeAppend(
        'embedded',
        appends.reduce((n, a) => n + a.messages.length, 0),
      );
      return written;
    },
    { maxPending },
  );

  const afterAppend = (topic: string, partitions: Set<number>, count: number) => {
    wakeups.wake(topic, partitions);
    if (!log.topics.get(topic)?.compacted) return;
    const n = (appendsSinceCompaction.get(topic) ?? 0) + count;
    appendsSinceCompaction.set(topic, n >= COMPACT_EVERY ? 0 : n);
    if (n >= COMPACT_EVERY) log.compact(topic);
  };

  return {
    async publish(topic, messages) {
      if (messages.length === 0) return;
      if (!log.topics.has(topic)) throw new Error(`unknown topic ${topic}`);
      let partitions: Set<number>;
      try {
        partitions = await writer.submit({ topic, messages });
      } catch (err) {
        if (err instanceof OverloadedError) throw new BusUnavailableError('event log is overloaded', { cause: err });
        throw new BusUnavailableError('event log write failed', { cause: err });
      }
      afterAppend(topic, partitions, messages.length);
    },
    drain: () => writer.drain(),
  };
}
