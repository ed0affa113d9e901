import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast-metrics.ts';
import { closeServer, createHttpServer, listen } from './http-server.ts';
import type { Logger } from './logger.ts';

/**
 * The process's Prometheus metrics (docs/metrics.md lists every one). One `Registry` per process — never
 * prom-client's global one, so the embedded all-in-one and tests that start several apps in one process do not
 * collide. The per-request and per-publish series find their child through one map per label and add to plain
 * numbers (`fast-metrics.ts`: nothing allocated once a label combination has been seen); the rare ones (lag, dead
 * letters, notification attempts) are prom-client's own, bound once per label combination.
 */
export interface Metrics {
  readonly registry: Registry;
  /** One answered HTTP request; `route` is a template (`/api/v1/forms/:formId`), never the raw path. */
  observeHttp(service: string, route: string, method: string, status: number, seconds: number): void;
  /** One submission answered by ingest: `accepted` (stored), `spam` (stored, flagged) or `rejected` (with `code`). */
  countSubmission(outcome: SubmissionOutcome, code?: string): void;
  /**
   * Time one accepted submission spent in a stage of ingest (`IngestStage`): summed per stage, so the time per
   * submission of each is `Δ formgate_ingest_stage_seconds_total / Δ accepted` (`pnpm bench` reports it).
   */
  observeIngestStage(stage: IngestStage, seconds: number): void;
  /** The bus adapters' instrumentation (`BusMetrics` in `@formgate/bus`): same names in both modes. */
  readonly bus: {
    observePublish(topic: string, seconds: number): void;
    observeBatch(topic: string, size: number): void;
    observeAppend(log: 'kafka' | 'embedded', records: number): void;
    setLag(group: string, topic: string, partition: number, lag: number): void;
    forgetLag(group: string, topic: string, partition: number): void;
    deadLettered(group: string, topic: string): void;
  };
  /** One notification attempt: `channel` `email` | `webhook`, `status` what became of it. */
  countNotificationAttempt(channel: string, status: string): void;
  /**
   * One command sent to MongoDB on the connection to database `db` (its name without `MONGO_DB_PREFIX`), as the
   * driver's command monitoring names it (`insert`, `find`, `getMore`…). Called once per command: a plain increment.
   */
  countMongoCommand(db: string, command: string): void;
  /** The text exposition of every metric. */
  exposition(): Promise<{ contentType: string; body: string }>;
}

export type SubmissionOutcome = 'accepted' | 'rejected' | 'spam';

/**
 * The stages of an accepted submission in ingest: `parse` (read the body, parse it within limits, split the reserved
 * fields), `spam` (the layers before and after the body) and `append` (encode the event, wait for the log's ack).
 */
export type IngestStage = 'parse' | 'spam' | 'append';

/** Latency buckets (seconds): 1 ms to 10 s, dense where the API and the log answer. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];

/** Children of a labelled prom-client metric, bound once per label combination (keyed by the values joined with NUL). */
function children<T>(bind: (values: string[]) => T) {
  const bound = new Map<string, T>();
  return (...values: string[]): T => {
    const key = values.join('\u0000');
    let child = bound.get(key);
    if (child === undefined) {
      child = bind(values);
      bound.set(key, child);
    }
    return child;
  };
}

export interface CreateMetricsOptions {
  /** Node's own metrics (event-loop delay, heap, GC, CPU, handles): on unless a test turns them off. */
  defaults?: boolean;
  /** Labels every series of this registry carries (e.g. `{ process: 'ingest' }`). */
  labels?: Record<string, string>;
}

export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.labels) registry.setDefaultLabels(options.labels);
  // Standard names (`nodejs_eventloop_lag_seconds`, `nodejs_heap_size_used_bytes`, `process_cpu_seconds_total`…),
  // so the usual Node.js dashboards work unchanged.
  if (options.defaults !== false) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];

  // The per-request and per-publish metrics are the hot path's: plain numbers behind label maps (`fast-metrics.ts`).
  const httpRequests = new FastCounter({
    name: 'formgate_http_requests_total',
    help: 'HTTP requests answered, by service, route template, method and status',
    labelNames: ['service', 'route', 'method', 'status'],
    registry,
  });
  const httpDuration = new FastHistogram(
    {
      name: 'formgate_http_request_duration_seconds',
      help: 'Time from a request’s arrival to its answer being sent, by service, route template, method and status',
      labelNames: ['service', 'route', 'method', 'status'],
      registry,
    },
    LATENCY_BUCKETS,
  );
  const submissions = new FastCounter({
    name: 'formgate_ingest_submissions_total',
    help: 'Submissions answered by ingest: accepted, spam (accepted, flagged) or rejected (by error code)',
    labelNames: ['outcome', 'code'],
    registry,
  });
  const stageSeconds = new FastCounter({
    name: 'formgate_ingest_stage_seconds_total',
    help: 'Time accepted submissions spent in each stage of ingest (parse, spam, append), summed',
    labelNames: ['stage'],
    registry,
  });
  const publishDuration = new FastHistogram(
    {
      name: 'formgate_bus_publish_duration_seconds',
      help: 'Time until the event log acknowledged a publish (or refused it), by topic',
      labelNames: ['topic'],
      registry,
    },
    LATENCY_BUCKETS,
  );
  const batchSize = new FastHistogram(
    {
      name: 'formgate_bus_batch_size',
      help: 'Records per batch handed to a consumer, by topic',
      labelNames: ['topic'],
      registry,
    },
    BATCH_BUCKETS,
  );
  const mongoCommands = new FastCounter({
    name: 'formgate_mongo_commands_total',
    help: 'Commands this process sent to MongoDB, by database (without the deployment prefix) and command name',
    labelNames: ['db', 'command'],
    registry,
  });
  const appendSize = new FastHistogram(
    {
      name: 'formgate_bus_append_records',
      help: 'Records per write to the event log, by log: a Kafka produce request (kafka), a group commit (embedded)',
      labelNames: ['log'],
      registry,
    },
    BATCH_BUCKETS,
  );
  const lag = new Gauge({
    name: 'formgate_consumer_lag',
    help: 'Records of a partition not yet processed by this process’s consumer of the group (log end − position)',
    labelNames: ['group', 'topic', 'partition'] as const,
    registers,
  });
  const deadLetters = new Counter({
    name: 'formgate_dead_letters_total',
    help: 'Records a consumer group appended to <topic>.dlq',
    labelNames: ['group', 'topic'] as const,
    registers,
  });
  const notificationAttempts = new Counter({
    name: 'formgate_notification_attempts_total',
    help: 'Delivery attempts of notifications, by channel and status',
    labelNames: ['channel', 'status'] as const,
    registers,
  });

  const statuses = new Map<number, string>();
  const statusLabel = (status: number) => {
    let label = statuses.get(status);
    if (label === undefined) {
      label = String(status);
      statuses.set(status, label);
    }
    return label;
  };
  const lagOf = children(([group, topic, partition]) => lag.labels({ group, topic, partition }));
  const dead = children(([group, topic]) => deadLetters.labels({ group, topic }));
  const attempts = children(([channel, status]) => notificationAttempts.labels({ channel, status }));

  return {
    registry,
    observeHttp(service, route, method, status, seconds) {
      const s = statusLabel(status);
      httpRequests.inc(service, route, method, s);
      httpDuration.observe(seconds, service, route, method, s);
    },
    countSubmission: (outcome, code = '') => submissions.inc(outcome, code),
    observeIngestStage: (stage, seconds) => stageSeconds.add(seconds, stage),
    bus: {
      observePublish: (topic, seconds) => publishDuration.observe(seconds, topic),
      observeBatch: (topic, size) => batchSize.observe(size, topic),
      observeAppend: (log, records) => appendSize.observe(records, log),
      setLag: (group, topic, partition, value) => lagOf(group, topic, String(partition)).set(value),
      // A bound child stays usable after `remove`: a later `set` brings the series back.
      forgetLag: (group, topic, partition) => lag.remove({ group, topic, partition: String(partition) }),
      deadLettered: (group, topic) => dead(group, topic).inc(),
    },
    countNotificationAttempt: (channel, status) => attempts(channel, status).inc(),
    countMongoCommand: (db, command) => mongoCommands.inc(db, command),
    async exposition() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * `metrics` whose exposition also holds the series of other registries of the process — another thread's, read as
 * `Registry.getMetricsAsJSON()` answers them — merged as prom-client merges a cluster's: one family per name, the
 * values of a series present in several summed. The embedded host serves its services thread's metrics this way.
 */
export function withMetricsFrom(metrics: Metrics, others: () => Promise<unknown[][]>): Metrics {
  return {
    ...metrics,
    async exposition() {
      // prom-client leaves out of a merge what is marked `omit` (the process's start time): this registry's own
      // series are the process's, so they are kept as they are.
      const own = (await metrics.registry.getMetricsAsJSON()).map((m) =>
        m.aggregator === 'omit' ? { ...m, aggregator: 'first' as const } : m,
      );
      const parts = [own, ...(await others())];
      const merged = AggregatorRegistry.aggregate(parts as Parameters<typeof AggregatorRegistry.aggregate>[0]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}

/** Seconds since `started` (a `process.hrtime.bigint()`). */
export const secondsSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9;

/**
 * Express middleware recording `formgate_http_*` for every request of a service's app. The route label is the
 * template Express matched, mount path included (`/api/v1/forms/:formId`), caught when Express sets `req.route`
 * (after an error it would read the sub-router's path alone); `unmatched` when no route answered.
 */
export function httpMetrics(metrics: Metrics, service: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const route = matchedRoute(req);
    res.once('finish', () => metrics.observeHttp(service, route(), req.method, res.statusCode, secondsSince(started)));
    next();
  };
}

const ROUTE_OF = Symbol('formgate.matched-route');

/**
 * The route template Express matches for `req` (`<mount path><route path>`, 'unmatched' until one does), read when
 * the answer is sent: caught as the router sets `req.route`, since a sub-router restores `req.baseUrl` on leaving.
 * Shared by the metrics and the tracing middleware (installed once per request).
 */
export function matchedRoute(req: Request): () => string {
  const known = (req as unknown as Record<symbol, () => string>)[ROUTE_OF];
  if (known) return known;
  let route = 'unmatched';
  let matched: Request['route'];
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => matched,
    set(value: Request['route']) {
      matched = value;
      if (value && typeof value.path === 'string') route = `${req.baseUrl}${value.path}`;
    },
  });
  const read = () => route;
  (req as unknown as Record<symbol, () => string>)[ROUTE_OF] = read;
  return read;
}

/**
 * The `/metrics` listener's handler: `GET /metrics` answers the text exposition; anything else 404. It runs on its
 * own port (`METRICS_PORT`, ADR 46), never on a process's public one.
 */
export function metricsHandler(metrics: Metrics) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('metrics unavailable\n'),
    );
  };
}

/** Listens for `GET /metrics` on a port of its own; `stop()` closes it. */
export async function serveMetrics(metrics: Metrics, opts: { port: number; host?: string; logger?: Logger }) {
  const server = createHttpServer(metricsHandler(metrics));
  const port = await listen(server, opts.port, opts.host);
  opts.logger?.info({ port }, 'metrics listening');
  return { port, stop: () => closeServer(server) };
}
