import { type EventBus, traced } from '@formgate/bus';
import { createKafkaBus } from '@formgate/bus/kafka';
import {
  createLogger,
  createMetrics,
  createReadiness,
  createStoreHealth,
  type Logger,
  type Metrics,
  type Readiness,
  type StoreHealth,
  startedCheck,
  startTracing,
  type Tracing,
  type TracingConfig,
} from '@formgate/kit';
import { createMongoPool, type MongoPool } from './mongo-pool.ts';

/** What every distributed process reads (see `serviceEnv`). */
export interface DistributedConfig extends TracingConfig {
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

/** How often one kafkajs complaint (the same context and message) is logged while it repeats. */
const REPEATED_LOG_EVERY_MS = 10_000;

/**
 * `warn`, at most once per `REPEATED_LOG_EVERY_MS` for the same context and message, with how many were left out
 * since: kafkajs logs every connection retry, several a second per client while the broker is away.
 */
function sparse(warn: (err: unknown, context: string, left: number) => void) {
  const seen = new Map<string, { at: number; left: number }>();
  return (err: unknown, context: string) => {
    const key = `${context}\n${err instanceof Error ? err.message : String(err)}`;
    const now = Date.now();
    const last = seen.get(key);
    if (last && now - last.at < REPEATED_LOG_EVERY_MS) return void last.left++;
    if (seen.size > 1_000) seen.clear();
    seen.set(key, { at: now, left: 0 });
    warn(err, context, last?.left ?? 0);
  };
}

/** The parts of a distributed process that outlive its boot attempts; opening them does no I/O. */
export interface Host {
  logger: Logger;
  metrics: Metrics;
  bus: EventBus;
  mongo: MongoPool;
  readiness: Readiness;
  storeHealth: StoreHealth;
  /** The process's tracing (`OTEL_EXPORTER_OTLP_ENDPOINT`, ADR 51); `undefined` when off. */
  tracing: Tracing | undefined;
  /** `/readyz`'s `started` check: passes once `build` and `start()` succeeded. */
  started(): void;
}

/**
 * A logger per instance, metrics, tracing, the Kafka bus, Mongo connections on demand and `/readyz`'s checks: the
 * bus answers (`bus`), every database opened takes a write (`stores`), the process was built and started (`started`).
 */
export async function openHost(name: string, config: DistributedConfig): Promise<Host> {
  const logger = createLogger({ level: config.LOG_LEVEL, name }).child({ instance: config.INSTANCE_ID });
  const metrics = createMetrics();
  // Before anything is built: services decide once whether to trace (OTEL_EXPORTER_OTLP_ENDPOINT, ADR 51).
  const tracing = await startTracing(name, config, { 'service.instance.id': config.INSTANCE_ID });
  const storeHealth = createStoreHealth({
    onChange: (store, ok, err) =>
      ok ? logger.info({ store }, 'store answers again') : logger.warn({ store, err }, 'store does not answer'),
  });
  const kafka = createKafkaBus({
    metrics: metrics.bus,
    storeHealthy: (options) => storeHealth.healthy(options),
    onDeadLetter: (err, letter) =>
      logger.error({ err, ...letter }, 'record dead-lettered: acknowledged data left the pipeline'),
    brokers: config.KAFKA_BROKERS,
    topicPrefix: config.KAFKA_TOPIC_PREFIX,
    clientId: `${name}-${config.INSTANCE_ID}`,
    publishTimeoutMs: config.KAFKA_PUBLISH_TIMEOUT_MS,
    onError: sparse((err, context, left) => logger.warn({ err, context, left }, 'kafka')),
  });
  const bus = tracing ? traced(kafka, tracing, 'kafka') : kafka;
  const readiness = createReadiness({
    onChange: (check, ok, err) =>
      ok ? logger.info({ check }, 'ready again') : logger.warn({ check, err }, 'readiness check failing'),
  });
  const started = startedCheck('starting: dependencies or views not ready yet');
  readiness.register('started', started.check);
  readiness.register('bus', () => bus.ping());
  readiness.register('stores', async () => {
    if (!(await storeHealth.healthy())) throw new Error('a database does not take writes');
  });
  const probe = `${name}-${config.INSTANCE_ID}`;
  const mongo = createMongoPool({
    url: config.MONGO_URL,
    prefix: config.MONGO_DB_PREFIX,
    probe,
    storeHealth,
    countCommand: metrics.countMongoCommand,
  });
  return { logger, metrics, bus, mongo, readiness, storeHealth, tracing, started: started.started };
}
