import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AppError } from './errors.ts';
import { toErrorBody } from './http.ts';
import { createHttpServer, listen } from './http-server.ts';
import type { Logger } from './logger.ts';
import { drainServer } from './open-connections.ts';
import type { Readiness } from './readiness.ts';

export interface Closable {
  stop(): Promise<void>;
}

/**
 * What a process does on SIGTERM (and SIGINT), once: readiness turns 503 so no new traffic is routed here, the
 * server stops accepting and drains in-flight requests, then each of `closables` stops in order (consumers finish
 * their batch and commit). Done → exit 0; a failure → exit 1; past `timeoutMs` → a log line and exit 1. A second
 * signal exits at once. With `delayMs`, the server keeps accepting that long first (readiness already 503).
 */
export function onShutdownSignal(opts: {
  name: string;
  logger: Logger;
  timeoutMs: number;
  /** Accept new connections this long after the signal, `/readyz` answering 503 (`SHUTDOWN_DELAY_MS`). */
  delayMs?: number;
  readiness?: Readiness;
  server?: Server;
  closables: Closable[];
}) {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    const started = Date.now();
    opts.logger.info({ signal, timeoutMs: opts.timeoutMs }, `${opts.name} shutting down`);
    const deadline = setTimeout(() => {
      opts.logger.error({ timeoutMs: opts.timeoutMs }, `${opts.name} shutdown deadline passed: exiting`);
      process.exit(1);
    }, opts.timeoutMs);
    deadline.unref();
    opts.readiness?.drain();
    try {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (opts.server) await drainServer(opts.server);
      for (const c of opts.closables) await c.stop();
      opts.logger.info({ ms: Date.now() - started }, `${opts.name} stopped`);
      process.exit(0);
    } catch (err) {
      opts.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/**
 * Runs a process until SIGINT/SIGTERM: listens with `handler` (plus `GET /readyz` from `readiness`), then shuts
 * down as `onShutdownSignal` says.
 */
export async function serveUntilSignal(opts: {
  name: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  port: number;
  host: string;
  logger: Logger;
  closables: Closable[];
  readiness?: Readiness;
  /** Default 25 s (`SHUTDOWN_TIMEOUT_MS`). */
  shutdownTimeoutMs?: number;
  /** Default 0 (`SHUTDOWN_DELAY_MS`). */
  shutdownDelayMs?: number;
}) {
  const { readiness, handler } = opts;
  const server = createHttpServer(readiness ? withReadyz(readiness, handler) : handler);
  const port = await listen(server, opts.port, opts.host);
  opts.logger.info({ port }, `${opts.name} listening`);
  onShutdownSignal({
    ...opts,
    server,
    timeoutMs: opts.shutdownTimeoutMs ?? 25_000,
    delayMs: opts.shutdownDelayMs ?? 0,
  });
  return port;
}

/** `handler`, with `GET /readyz` answered by `readiness` first. */
export function withReadyz(
  readiness: Readiness,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.url === '/readyz' || req.url?.startsWith('/readyz?')) return readiness.handle(req, res);
    handler(req, res);
  };
}

/**
 * A process's answers while it is not built yet (its dependencies, its views): `GET /healthz` 200 `{ status: 'ok' }`
 * — alive, no I/O, so a liveness probe never restarts a process that only waits — and anything else 503 with
 * `Retry-After` and the API's `UPSTREAM_UNAVAILABLE` envelope (documented on every route). `/readyz` is answered
 * before it (`withReadyz`).
 */
export function startingHandler(req: IncomingMessage, res: ServerResponse): void {
  const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  if (req.url === '/healthz' || req.url?.startsWith('/healthz?')) {
    res.writeHead(200, json).end(JSON.stringify({ status: 'ok' }));
    return;
  }
  const body = JSON.stringify(toErrorBody(new AppError('UPSTREAM_UNAVAILABLE'), randomUUID()));
  res.writeHead(503, { ...json, 'retry-after': '1' }).end(body);
}

/** Prints a boot failure (e.g. a bad configuration listing every problem) and exits non-zero. */
export function exitOnBootFailure(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
