import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { classifyFailure } from '@formgate/contracts';
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type Response,
} from 'express';
import { ZodError } from 'zod';
import { AppError } from './errors.ts';
import type { Logger } from './logger.ts';
import { httpMetrics, type Metrics, matchedRoute } from './metrics.ts';
import type { StoreHealth } from './store-health.ts';
import { type Tracing, tracing } from './tracing/index.ts';

/**
 * The Express app every service starts from: no `X-Powered-By`, a request id on every request, and `GET /healthz`
 * answering `{ status: 'ok', ...health() }`. With `observe`, every request is counted in `formgate_http_*` under the
 * service's name and the route template. The service adds its routes and, last, `errorHandler`.
 */
export function createServiceApp(
  health: () => Record<string, unknown> = () => ({}),
  observe?: { service: string; metrics: Metrics },
): Express {
  const app = express();
  app.disable('x-powered-by');
  if (observe) app.use(httpMetrics(observe.metrics, observe.service));
  if (tracing) app.use(traceRequests(tracing));
  app.use(requestId());
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', ...health() }));
  return app;
}

/**
 * A SERVER span per request continuing the caller's `traceparent` (the gateway's), named by the matched route
 * template (ADR 51). Only installed when tracing is on.
 */
function traceRequests(traces: Tracing) {
  return (req: Request, res: Response, next: NextFunction) => {
    traces.server(req.method, matchedRoute(req), res, req.headers, () => next());
  };
}

export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    req.requestId = typeof incoming === 'string' && /^[\w-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', req.requestId);
    next();
  };
}

/**
 * The single place where the API's errors become HTTP: `{ error: { code, message, requestId, details? } }`. With
 * `health`, an error that is not one of ours is first checked against the process's stores: while one of them does
 * not answer, it is an outage (503 `STORE_UNAVAILABLE` + Retry-After), whatever the driver's message said.
 */
export function errorHandler(logger: Logger, health?: StoreHealth): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const requestId = req.requestId ?? randomUUID();
    const answer = (known: AppError) => {
      if (known.code === 'INTERNAL') logger.error({ err, requestId, path: req.path }, 'request failed');
      else if (known.status >= 500) logger.warn({ code: known.code, requestId, path: req.path }, 'request failed');
      if (known.retryable) res.setHeader('retry-after', String(known.retryAfterSeconds ?? 1));
      res.status(known.status).json(toErrorBody(known, requestId));
    };
    const known = toAppError(err);
    if (known.code !== 'INTERNAL' || !health) return answer(known);
    health.healthy().then(
      (ok) => answer(ok ? known : new AppError('STORE_UNAVAILABLE', undefined, { cause: err })),
      () => answer(known),
    );
  };
}

export function toErrorBody(err: AppError, requestId: string) {
  return { error: { code: err.code, message: err.message, requestId, details: err.details } };
}

/** Maps anything thrown to a registered error; what is not one of ours becomes `INTERNAL` (logged, never shown). */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) {
    const details = err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    return new AppError('VALIDATION_FAILED', undefined, { details });
  }
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new AppError('MALFORMED_JSON');
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
  // A database or the log that cannot be reached is an outage, not a bug: 503 + Retry-After, never 500.
  if (classifyFailure(err) === 'transient') return new AppError('STORE_UNAVAILABLE', undefined, { cause: err });
  return new AppError('INTERNAL');
}

/** An HTTP server with timeouts set below Node's defaults, so slow clients cannot hold connections. */
export function createHttpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 65_000 }, handler);
  server.keepAliveTimeout = 65_000;
  return server;
}

export function listen(server: Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * What a request answered before its body was read may still send before its connection is cut. Reading and
 * dropping is cheap; the bound is generous because a proxy in front may have megabytes in flight before it sees the
 * answer and stops — the size of the largest body ingest accepts at all (multipart).
 */
const LINGER_BYTES = 32 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * For a request answered before its body was read (413, 415, 404…), still sending it. Closing the socket at once
 * makes our kernel answer the rest with a reset, which can destroy the answer before the client (or a proxy in
 * front) has read it. So: keep reading and dropping what arrives, and cut the connection only past `LINGER_BYTES`
 * or `LINGER_MS`; a client that stops sending keeps its keep-alive connection. Used by ingest's refusals and by the
 * gateway when an instance answered early (without it, an 8 MB post could get `write EPIPE` instead of its 413).
 */
export function lingerThenClose(req: IncomingMessage): void {
  let dropped = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  req.on('end', () => clearTimeout(timer));
  req.socket.once('close', () => clearTimeout(timer));
  req.resume();
}
