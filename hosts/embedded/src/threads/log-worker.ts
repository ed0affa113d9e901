/**
 * The log thread of embedded mode (ADR 77): the embedded event log (`DATA_DIR/bus.db`, held exclusively: this thread
 * is its one writer), served to the main thread (ingest's appends, its views' replays, the operator API) and to the
 * services thread (their consumers) over their own `MessageChannel`s (`serveBus`). Its commits — the fsync a 2xx
 * waits for — block this thread, not the one that answers `/f/*`. Started by `start-embedded.ts`.
 */
import { join } from 'node:path';
import { type MessagePort, workerData } from 'node:worker_threads';
import { serveBus } from '@formgate/bus/port';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { createLogger, createMetrics } from '@formgate/kit';
import { openSqlite, sqliteProbe } from '@formgate/store/sqlite';
import type { EmbeddedConfig } from '../config.ts';
import { runThread } from './run-thread.ts';

/** What the main thread hands the log thread (`workerData`). */
export interface LogThreadData {
  config: EmbeddedConfig;
  /** The main thread's end is `createPortBus`. */
  mainPort: MessagePort;
  /** The services thread's end is `createPortBus`. */
  servicesPort: MessagePort;
}

runThread(async () => {
  const { config, mainPort, servicesPort } = workerData as LogThreadData;
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'formgate' }).child({ thread: 'log' });
  // Node's own metrics are the main thread's (one process): this registry has the log's series only.
  const metrics = createMetrics({ defaults: false });
  const db = openSqlite(join(config.DATA_DIR, 'bus.db'), { synchronous: config.SQLITE_SYNCHRONOUS, exclusive: true });
  // No `storeHealthy` here: each thread judges its own handlers' failures against its own stores (ADR 68,
  // `createPortBus(port, { storeHealthy })`).
  const bus = createSqliteBus(db, {
    onError: (err, context) => logger.warn({ err, context }, 'event log'),
    onDeadLetter: (err, letter) =>
      logger.error({ err, ...letter }, 'record dead-lettered: acknowledged data left the pipeline'),
    metrics: metrics.bus,
  });
  const onError = (err: unknown, context: string) => logger.warn({ err, context }, 'event log port');
  const served = [serveBus(bus, servicesPort, { onError }), serveBus(bus, mainPort, { onError })];
  const probe = sqliteProbe(db);
  return {
    ready: null,
    async healthy() {
      try {
        probe();
        return true;
      } catch {
        return false;
      }
    },
    metricsJson: () => metrics.registry.getMetricsAsJSON(),
    async stop() {
      // The services thread has stopped (its consumers committed); then the main thread's end; then the file.
      for (const s of served) await s.close();
      await bus.close();
      db.close();
    },
  };
});
