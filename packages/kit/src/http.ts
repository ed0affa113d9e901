import { randomUUID } from 'node:crypto';
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
import type { Tracing } from './tracing/tracing.ts';

export interface ServiceAppOptions {
  /** What `GET /healthz` adds to `{ status: 'ok' }`. */
  health?: () => Record<string, unknown>;
  /** Counts every request in `formgate_http_*` under the service's name and the route template. */
  observe?: { service: string; metrics: Metrics } | undefined;
  /** The process's tracing (`startTracing`): a SERVER span per request when on. */
  tracing?: Tracing | undefined;
}

/**
 * The Express app every service starts from: no `X-Powered-By`, a request id on every request, and `GET /healthz`
 * answering `{ status: 'ok', ...health() }`. The service adds its routes and, last, `errorHandler`.
 */
export function createServiceApp({ health = () => ({}), observe, tracing }: ServiceAppOptions = {}): Express {
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
    // An unknown key (request schemas are strict, `strictRequest`) is named by its own path, one detail per key.
    const unknown = err.issues.flatMap((i) =>
      i.code === 'unrecognized_keys' ? i.keys.map((key) => [...i.path, key].join('.')) : [],
    );
    const details = [
      ...unknown.map((path) => ({ path, message: 'Unknown parameter' })),
      ...err.issues
        .filter((i) => i.code !== 'unrecognized_keys')
        .map((i) => ({ path: i.path.join('.'), message: i.message })),
    ];
    const message = unknown.length > 0 ? `Received unknown parameter: ${unknown.join(', ')}` : undefined;
    return new AppError('VALIDATION_FAILED', message, { details });
  }
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new AppError('MALFORMED_JSON');
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
  // A database or the log that cannot be reached is an outage, not a bug: 503 + Retry-After, never 500.
  if (classifyFailure(err) === 'transient') return new AppError('STORE_UNAVAILABLE', undefined, { cause: err });
  return new AppError('INTERNAL');
}
