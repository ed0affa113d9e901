import { type SqliteDb, truncateWal } from '@formgate/store/sqlite';
import { createDeadLetters, type DeadLetterLog } from '../dead-letters.ts';
import type { DeliveryHooks } from '../delivery.ts';
import { type BusMessage, BusUnavailableError, type EventBus, type EventPublisher } from '../event-bus.ts';
import { measureLag } from '../lag.ts';
import { type BusMetrics, NO_BUS_METRICS, timedPublish } from '../metrics.ts';
import { createSubscriptionRegistry } from '../subscriptions.ts';
import { createGroups } from './consumer.ts';
import { type Log, openLog, toMessage } from './log.ts';
import { createAppender } from './producer.ts';
import { createReplay } from './replay.ts';
import { createWakeups } from './wakeups.ts';

export interface SqliteBusOptions extends DeliveryHooks {
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
  /** Publish latency, batch sizes, lag and dead letters (`createMetrics().bus`); default: not recorded. */
  metrics?: BusMetrics;
}

const RETENTION_SWEEP_MS = 10 * 60_000;
/** Records read per transaction by `eraseRecords` (appends wait for one chunk at most). */
const ERASE_CHUNK = 2_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The dead-letter operations' view of the embedded log (`.dlq` topics have one partition). */
function deadLetterLog(log: Log, publish: EventPublisher['publish']): DeadLetterLog {
  return {
    publish,
    bounds: async (topic) => {
      const { low, high } = log.bounds(topic, 0);
      return { low: BigInt(low), high: BigInt(high) };
    },
    readAll: async (topic) => {
      const records: BusMessage[] = [];
      for (;;) {
        const rows = log.fetch(topic, 0, Number(records.at(-1)?.offset ?? -1) + 1, 1_000);
        if (rows.length === 0) return records;
        for (const r of rows) records.push(toMessage(topic, r));
      }
    },
  };
}

/**
 * The embedded event log: an append-only SQLite table with Kafka's semantics — partitions by key, consumer
 * groups with committed offsets, at-least-once delivery, retries then `<topic>.dlq`, compacted topics. Publishes
 * are group-committed (one transaction per event-loop turn). One process owns the database file.
 */
export function createSqliteBus(db: SqliteDb, opts: SqliteBusOptions = {}): EventBus {
  const onError = opts.onError ?? (() => {});
  const log = openLog(db, (err) => onError(err, 'committing consumer offsets'));
  const wakeups = createWakeups();
  const registry = createSubscriptionRegistry();
  const metrics = opts.metrics ?? NO_BUS_METRICS;
  const appender = createAppender(db, log, wakeups, opts.maxPendingPublishes ?? 50_000, metrics);
  const idlePollMs = opts.idlePollMs ?? 1_000;
  const subscribe = createGroups({
    log,
    wakeups,
    dlq: appender,
    registry,
    onError,
    onDeadLetter: opts.onDeadLetter,
    storeHealthy: opts.storeHealthy,
    idlePollMs,
    lingerMs: opts.consumerLingerMs ?? 20,
    metrics,
  });
  const sweep = () => log.deleteOlderThan(Date.now() - (opts.retentionMs ?? 7 * 24 * 3600_000));
  // Also at open: a process restarted more often than the sweep interval would otherwise never sweep.
  sweep();
  const retentionTimer = setInterval(sweep, RETENTION_SWEEP_MS);
  retentionTimer.unref();

  return {
    publish: timedPublish(appender.publish, metrics),
    ensureTopics: async (specs) => log.ensureTopics(specs),
    subscribe,
    replay: createReplay({ log, wakeups, registry, idlePollMs }),
    deadLetters: createDeadLetters(deadLetterLog(log, appender.publish)),
    async ping() {
      try {
        db.prepare('SELECT 1').get();
      } catch (err) {
        throw new BusUnavailableError('the embedded log cannot be read', { cause: err });
      }
    },
    async lag(groups) {
      try {
        return await measureLag(groups, {
          offsets: async (topic) =>
            Array.from({ length: log.topics.get(topic)?.partitions ?? 0 }, (_, partition) => {
              const { low, high } = log.bounds(topic, partition);
              return { partition, low: BigInt(low), high: BigInt(high) };
            }),
          committed: async (group, topic) => {
            const committed = new Map<number, bigint>();
            for (let p = 0; p < (log.topics.get(topic)?.partitions ?? 0); p++) {
              const offset = log.committed(group, topic, p);
              if (offset !== undefined) committed.set(p, BigInt(offset));
            }
            return committed;
          },
        });
      } catch (err) {
        throw new BusUnavailableError('the embedded log cannot be read', { cause: err });
      }
    },
    async eraseRecords(match) {
      // After what is being appended, so a record appended just before the call is erased too.
      await appender.drain();
      let erased = 0;
      for (const [topic, { partitions }] of log.topics) {
        for (let partition = 0; partition < partitions; partition++) {
          // Newest first, a chunk per transaction with appends in between, down to the records older than `since`.
          const { low } = log.bounds(topic, partition);
          for (let to = log.nextOffset(topic, partition); to > low; to -= ERASE_CHUNK) {
            const chunk = log.eraseRange(topic, partition, Math.max(low, to - ERASE_CHUNK), to, match);
            erased += chunk.erased;
            if (match.since !== undefined && chunk.oldest !== null && chunk.oldest < match.since) break;
            await nextTurn();
          }
        }
      }
      // Their old bytes live on in the WAL until it is checkpointed.
      await truncateWal(db);
      return erased;
    },
    async close() {
      clearInterval(retentionTimer);
      await registry.stopAll();
      await appender.drain();
      try {
        log.flushCommits();
      } catch (err) {
        onError(err, 'committing consumer offsets');
      }
    },
  };
}
