import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '@formgate/bus';
import {
  type Closable,
  createHttpServer,
  exitOnBootFailure,
  type Logger,
  listen,
  type Metrics,
  onShutdownSignal,
  type Readiness,
  type StoreHealth,
  serveMetrics,
  startingHandler,
  type Tracing,
  withReadyz,
} from '@formgate/kit';
import type { MongoConnection } from '@formgate/store/mongo';
import { attemptBus } from './attempt-bus.ts';
import { awaitedDependency } from './boot-failure.ts';
import { createBootLoop } from './boot-loop.ts';
import { type DistributedConfig, type Host, openHost } from './host.ts';

export interface DistributedParts<C> {
  config: C;
  logger: Logger;
  bus: EventBus;
  /** This process's metrics (the bus records into them already); served on `METRICS_PORT` when set. */
  metrics: Metrics;
  /** Connects to this deployment's database `<MONGO_DB_PREFIX>_<name>` (once per name); closed on shutdown. */
  mongo(name: string): Promise<MongoConnection>;
  /**
   * `GET /readyz`: already checks the bus, every database opened through `mongo()`, and that `start()` resolved
   * (views replayed); a process registers what else it needs — once per name, since `build` may run more than once.
   * Never another service (docs/operations.md).
   */
  readiness: Readiness;
  /**
   * Whether every database opened through `mongo()` takes a write now (`probeStorage`): consumers never dead-letter
   * while it says no, `errorHandler(logger, storeHealth)` answers 503 instead of 500, and `/readyz` checks it.
   */
  storeHealth: StoreHealth;
  /** The process's tracing, for the service's deps (the bus is traced already); `undefined` when off. */
  tracing: Tracing | undefined;
}

/** The process's HTTP handler and what `start`s before it takes requests and `stop`s after it stops accepting. */
export interface Served extends Closable {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  start?(): Promise<void>;
}

type Build<C> = (parts: DistributedParts<C>) => Promise<Served>;

/** One boot attempt after another (`createBootLoop`), each on a bus of its own that a failure stops (`attemptBus`). */
function bootAttempts<C extends DistributedConfig>(config: C, host: Host, build: Build<C>) {
  const { logger, metrics, readiness, storeHealth, tracing } = host;
  let attempt: { stopOpened(): Promise<void>; served?: Served } | undefined;
  const loop = createBootLoop({
    logger,
    async attempt() {
      const tracked = attemptBus(host.bus);
      attempt = tracked;
      const mongo = (db: string) => host.mongo.connect(db);
      const served = await build({ config, logger, bus: tracked.bus, metrics, mongo, readiness, storeHealth, tracing });
      attempt.served = served;
      await served.start?.();
      return served;
    },
    async undo() {
      const failed = attempt;
      attempt = undefined;
      await failed?.served?.stop();
      await failed?.stopOpened();
    },
    awaited: (err) => awaitedDependency(err, { bus: () => host.bus.ping(), stores: () => storeHealth.healthy() }),
  });
  /** Ends the loop and stops what the attempt in flight, or the one that succeeded, has built. */
  const stop = async () => {
    loop.stop();
    await attempt?.served?.stop();
  };
  return { run: loop.run, stop };
}

/**
 * The shared shape of every distributed entry point: parse the config (a bad one stops the boot listing every
 * problem), then listen at once — `/healthz` 200 (alive), `/readyz` 503 naming what is awaited, every other request
 * 503 `UPSTREAM_UNAVAILABLE` — and `build` and `start()` the process, again and again while Kafka or MongoDB is away
 * (a failure that is not a dependency's still stops the boot). Once started it takes requests until SIGINT/SIGTERM
 * and closes in reverse order of opening. `GET /readyz` answers 200 once `start()` resolved while the bus and its
 * databases answer, 503 otherwise and from the first SIGTERM on.
 */
export async function runDistributed<C extends DistributedConfig>(name: string, loadConfig: () => C, build: Build<C>) {
  try {
    const config = loadConfig();
    const host = await openHost(name, config);
    let handler: (req: IncomingMessage, res: ServerResponse) => void = startingHandler;
    const server = createHttpServer(withReadyz(host.readiness, (req, res) => handler(req, res)));
    const port = await listen(server, config.PORT, config.HOST);
    host.logger.info({ port }, `${name} listening; starting`);
    const metricsServer =
      config.METRICS_PORT === undefined
        ? undefined
        : await serveMetrics(host.metrics, { port: config.METRICS_PORT, host: config.HOST, logger: host.logger });
    const boot = bootAttempts(config, host, build);
    onShutdownSignal({
      name,
      logger: host.logger,
      readiness: host.readiness,
      server,
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      delayMs: config.SHUTDOWN_DELAY_MS,
      closables: [
        { stop: boot.stop },
        { stop: () => host.bus.close() },
        { stop: () => host.mongo.close() },
        ...(metricsServer ? [metricsServer] : []),
        // Last: the spans of the drain itself are exported too.
        { stop: async () => host.tracing?.stop() },
      ],
    });
    const served = await boot.run();
    if (!served || host.readiness.draining) return;
    handler = served.handler;
    host.started();
    host.logger.info({ port }, `${name} started`);
  } catch (err) {
    exitOnBootFailure(err);
  }
}
