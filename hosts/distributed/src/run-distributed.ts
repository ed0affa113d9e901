import type { IncomingMessage, ServerResponse } from 'node:http';
import { type EventBus, traced } from '@formgate/bus';
import { createKafkaBus } from '@formgate/bus/kafka';
import {
  type Closable,
  createLogger,
  createMetrics,
  createReadiness,
  createStoreHealth,
  exitOnBootFailure,
  type Logger,
  type Metrics,
  type Readiness,
  type StoreHealth,
  serveMetrics,
  serveUntilSignal,
  startedCheck,
  startTracing,
  stopTracing,
} from '@formgate/kit';
import { connectMongo, type MongoConnection, probeStorage } from '@formgate/store/mongo';

/** What every distributed process reads (see `serviceEnv`). */
interface DistributedConfig {
  LOG_LEVEL: string;
  PORT: number;
  HOST: string;
  METRICS_PORT?: number;
  KAFKA_BROKERS: string[];
  KAFKA_TOPIC_PREFIX: string;
  KAFKA_PUBLISH_TIMEOUT_MS: number;
  MONGO_URL: string;
  MONGO_DB_PREFIX: string;
  INSTANCE_ID: string;
  SHUTDOWN_TIMEOUT_MS: number;
  SHUTDOWN_DELAY_MS: number;
}

export interface DistributedParts<C> {
  config: C;
  logger: Logger;
  bus: EventBus;
  /** This process's metrics (the bus records into them already); served on `METRICS_PORT` when set. */
  metrics: Metrics;
  /** Connects to this deployment's database `<MONGO_DB_PREFIX>_<name>`; closed on shutdown. */
  mongo(name: string): Promise<MongoConnection>;
  /**
   * `GET /readyz`: already checks the bus, every database opened through `mongo()`, and that `start()` resolved
   * (views replayed); a process registers what else it needs. Never another service (docs/operations.md).
   */
  readiness: Readiness;
  /**
   * Whether every database opened through `mongo()` takes a write now (`probeStorage`): consumers never dead-letter
   * while it says no, `errorHandler(logger, storeHealth)` answers 503 instead of 500, and `/readyz` checks it.
   */
  storeHealth: StoreHealth;
}

/** The process's HTTP handler and what `start`s before it listens and `stop`s after it stops accepting. */
export interface Served extends Closable {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  start?(): Promise<void>;
}

/**
 * The shared shape of every distributed entry point: parse the config (a bad one stops the boot listing every
 * problem), a logger per instance, the Kafka bus, Mongo connections on demand, then `build` wires the process;
 * it serves until SIGINT/SIGTERM and closes in reverse order of opening. `GET /readyz` answers 200 once `start()`
 * resolved while the bus and its databases answer, 503 otherwise and from the first SIGTERM on.
 */
export async function runDistributed<C extends DistributedConfig>(
  name: string,
  loadConfig: () => C,
  build: (parts: DistributedParts<C>) => Promise<Served>,
) {
  try {
    const config = loadConfig();
    const logger = createLogger({ level: config.LOG_LEVEL, name }).child({ instance: config.INSTANCE_ID });
    const metrics = createMetrics();
    // Before anything is built: services decide once whether to trace (OTEL_EXPORTER_OTLP_ENDPOINT, ADR 51).
    const tracing = await startTracing(name, process.env, { 'service.instance.id': config.INSTANCE_ID });
    const storeHealth = createStoreHealth({
      onChange: (store, ok, err) =>
        ok ? logger.info({ store }, 'store answers again') : logger.warn({ store, err }, 'store does not answer'),
    });
    const kafka = createKafkaBus({
      metrics: metrics.bus,
      storeHealthy: () => storeHealth.healthy(),
      onDeadLetter: (err, letter) =>
        logger.error({ err, ...letter }, 'record dead-lettered: acknowledged data left the pipeline'),
      brokers: config.KAFKA_BROKERS,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: `${name}-${config.INSTANCE_ID}`,
      publishTimeoutMs: config.KAFKA_PUBLISH_TIMEOUT_MS,
      onError: (err, context) => logger.warn({ err, context }, 'kafka'),
    });
    const bus = tracing ? traced(kafka, tracing, 'kafka') : kafka;
    const readiness = createReadiness({
      onChange: (check, ok, err) =>
        ok ? logger.info({ check }, 'ready again') : logger.warn({ check, err }, 'readiness check failing'),
    });
    const started = startedCheck('starting: views not replayed yet');
    readiness.register('started', started.check);
    readiness.register('bus', () => bus.ping());
    readiness.register('stores', async () => {
      if (!(await storeHealth.healthy())) throw new Error('a database does not take writes');
    });
    const connections: MongoConnection[] = [];
    const checked = new Set<string>();
    const mongo = async (db: string) => {
      const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_${db}`);
      connections.push(conn);
      if (!checked.has(db)) {
        checked.add(db);
        storeHealth.register(`mongo:${db}`, async () => {
          if (!conn.db) throw new Error('not connected');
          await probeStorage(conn.db, `${name}-${config.INSTANCE_ID}`);
        });
      }
      return conn;
    };
    const served = await build({ config, logger, bus, metrics, mongo, readiness, storeHealth });
    // Before `start()`: a scrape during a long view replay already shows the lag going down.
    const metricsServer =
      config.METRICS_PORT === undefined
        ? undefined
        : await serveMetrics(metrics, { port: config.METRICS_PORT, host: config.HOST, logger });
    await served.start?.();
    started.started();
    await serveUntilSignal({
      name,
      handler: served.handler,
      port: config.PORT,
      host: config.HOST,
      logger,
      readiness,
      shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      shutdownDelayMs: config.SHUTDOWN_DELAY_MS,
      closables: [
        served,
        { stop: () => bus.close() },
        ...connections.map((c) => ({ stop: () => c.close() })),
        ...(metricsServer ? [metricsServer] : []),
        // Last: the spans of the drain itself are exported too.
        { stop: () => stopTracing() },
      ],
    });
  } catch (err) {
    exitOnBootFailure(err);
  }
}
