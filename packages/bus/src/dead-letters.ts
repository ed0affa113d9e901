import { dlqReplayedTopic, dlqTopic } from '@formgate/contracts';
import { DeadLetterHeader, replayRecord, toDeadLetter } from './dead-letter.ts';
import type { BusMessage, DeadLetterSelection, DeadLetters, EventPublisher, ReplayResult } from './event-bus.ts';

/** What the dead-letter operations need from an adapter, on one-partition topics (`.dlq` and `.dlq.replayed`). */
export interface DeadLetterLog {
  publish: EventPublisher['publish'];
  /** Every retained record of the topic, in offset order. */
  readAll(topic: string): Promise<BusMessage[]>;
  /** The first retained offset and the next offset to be written (equal when the topic holds nothing). */
  bounds(topic: string): Promise<{ low: bigint; high: bigint }>;
}

async function replayedOffsets(log: DeadLetterLog, topic: string): Promise<Set<string>> {
  const { low, high } = await log.bounds(dlqReplayedTopic(topic));
  if (low === high) return new Set();
  return new Set((await log.readAll(dlqReplayedTopic(topic))).map((m) => m.key));
}

/**
 * One dead letter per original record: every consumer group that failed on a record dead-letters it on its own, but
 * a replay puts it back on the topic, where every group reads it. Appending each group's letter would hand every
 * group the record once per letter, and a poison pill replayed again and again would double each time.
 */
function oncePerOrigin(letters: BusMessage[]): BusMessage[] {
  const seen = new Set<string>();
  return letters.filter((m) => {
    const [partition, offset] = [m.headers[DeadLetterHeader.partition], m.headers[DeadLetterHeader.offset]];
    const origin = partition !== undefined && offset !== undefined ? `${partition}@${offset}` : `dlq@${m.offset}`;
    if (seen.has(origin)) return false;
    seen.add(origin);
    return true;
  });
}

function selects(selection: DeadLetterSelection, offset: string): boolean {
  if (selection === 'all') return true;
  const { offsets } = selection;
  if (Array.isArray(offsets)) return offsets.includes(offset);
  const o = BigInt(offset);
  return o >= BigInt(offsets.from) && o <= BigInt(offsets.to);
}

async function replay(log: DeadLetterLog, topic: string, selection: DeadLetterSelection): Promise<ReplayResult> {
  const [dead, done] = await Promise.all([log.readAll(dlqTopic(topic)), replayedOffsets(log, topic)]);
  const chosen = dead.filter((m) => selects(selection, m.offset));
  const fresh = chosen.filter((m) => !done.has(m.offset));
  const held = new Set(dead.map((m) => m.offset));
  const named = selection !== 'all' && Array.isArray(selection.offsets) ? selection.offsets : [];
  if (fresh.length > 0) {
    await log.publish(topic, oncePerOrigin(fresh).map(replayRecord));
    const replayedAt = new Date().toISOString();
    await log.publish(
      dlqReplayedTopic(topic),
      fresh.map((m) => ({ key: m.offset, value: JSON.stringify({ replayedAt }) })),
    );
  }
  return {
    replayed: fresh.map((m) => m.offset),
    alreadyReplayed: chosen.filter((m) => done.has(m.offset)).map((m) => m.offset),
    notFound: named.filter((o) => !held.has(o)),
  };
}

/** `DeadLetters` over an adapter's log; see the port's JSDoc for the guarantees. */
export function createDeadLetters(log: DeadLetterLog): DeadLetters {
  let replaying: Promise<unknown> = Promise.resolve();
  return {
    async list(topic, { from, limit }) {
      if (!(Number.isSafeInteger(limit) && limit > 0))
        throw new Error(`limit must be a positive integer, not ${limit}`);
      const [dead, done] = await Promise.all([log.readAll(dlqTopic(topic)), replayedOffsets(log, topic)]);
      const start = BigInt(from ?? 0);
      return dead
        .filter((m) => BigInt(m.offset) >= start)
        .slice(0, limit)
        .map((m) => toDeadLetter(topic, m, done.has(m.offset)));
    },

    replay(topic, selection) {
      const run = replaying.then(() => replay(log, topic, selection));
      replaying = run.catch(() => {});
      return run;
    },

    async count(topic) {
      const { low, high } = await log.bounds(dlqTopic(topic));
      if (low === high) return { total: 0, pending: 0 };
      const done = await replayedOffsets(log, topic);
      const replayed = [...done].filter((o) => BigInt(o) >= low && BigInt(o) < high).length;
      const total = Number(high - low);
      return { total, pending: total - replayed };
    },
  };
}
