import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/**
 * The Express app every service starts from: no `X-Powered-By`, a request id on every request, and `GET /healthz`
 * answering `{ status: 'ok', ...health() }`. The service adds its routes and, last, `errorHandler`.
 */
export function createServiceApp(health: () => Record<string, unknown> = () => ({})): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', ...health() }));
  return app;
}

export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    req.requestId = typeof incoming === 'string' && /^[\w-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', req.requestId);
    next();
  };
}

/** The single place where errors become HTTP: `{ error: { code, message, requestId } }`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const requestId = req.requestId ?? randomUUID();
    const { status, body } = toErrorResponse(err, requestId);
    if (status >= 500) logger.error({ err, requestId, path: req.path }, 'request failed');
    if (err instanceof AppError && err.retryable) res.setHeader('retry-after', '1');
    res.status(status).json(body);
  };
}

export function toErrorResponse(err: unknown, requestId: string) {
  if (err instanceof AppError) {
    return {
      status: err.status,
      body: { error: { code: err.code, message: err.message, requestId, details: err.details } },
    };
  }
  if (err instanceof ZodError) {
    const details = err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    return {
      status: 400,
      body: { error: { code: 'VALIDATION_FAILED', message: 'Invalid request', requestId, details } },
    };
  }
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.parse.failed') {
    return { status: 400, body: { error: { code: 'MALFORMED_JSON', message: 'Malformed JSON body', requestId } } };
  }
  if (e?.type === 'entity.too.large') {
    return {
      status: 413,
      body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large', requestId } },
    };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'Internal error', requestId } } };
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
