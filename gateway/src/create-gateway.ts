import { existsSync } from 'node:fs';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import {
  AppError,
  errorHandler,
  IDENTITY_HEADER,
  type IdentitySigner,
  type Logger,
  requestId,
  unauthenticated,
} from '@formgate/kit';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Authenticator } from './authenticate.ts';
import { isPublicIngestPath, matchRoute, type RouteSpec, type ServiceName } from './routes.ts';

/** A service the gateway forwards to: in the same process (embedded), or over HTTP (distributed). */
export type Target =
  | { kind: 'in-process'; app: Express; handle?: (req: IncomingMessage, res: ServerResponse) => void }
  | { kind: 'http'; urls: string[] };

export interface GatewayDeps {
  routes: readonly RouteSpec[];
  targets: Partial<Record<ServiceName, Target>>;
  authenticate: Authenticator;
  signer: IdentitySigner;
  logger: Logger;
  /** Origins allowed to send mutations with credentials (the dashboard's own origin). */
  trustedOrigins: string[];
  /** Built dashboard (`web/dist`), served for every other GET. */
  webDir?: string;
}

type Forward = (req: Request, res: Response, next: NextFunction) => void;

function forwarder(target: Target, agent: Agent, logger: Logger): Forward {
  if (target.kind === 'in-process') {
    return (req, res) => (target.handle ?? target.app)(req, res);
  }
  let next = 0;
  return createProxyMiddleware({
    target: target.urls[0],
    // Round-robin over the service's instances (a load balancer in front of them works as well).
    router: () => target.urls[next++ % target.urls.length],
    agent,
    xfwd: true,
    proxyTimeout: 30_000,
    on: {
      proxyReq: (proxyReq, req) => {
        const token = (req as Request).identityToken;
        if (token) proxyReq.setHeader(IDENTITY_HEADER, token);
      },
      error: (err, _req, res) => {
        logger.warn({ err: { message: (err as Error).message }, target: target.urls }, 'upstream unavailable');
        const r = res as ServerResponse;
        if (!r.headersSent) r.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
        r.end(
          JSON.stringify({ error: { code: 'UPSTREAM_UNAVAILABLE', message: 'Service unavailable, retry shortly' } }),
        );
      },
    },
  }) as unknown as Forward;
}

/** Fetch-Metadata and Origin checks: a cross-site page cannot drive a mutation with the user's cookies. */
function checkCsrf(req: Request, trusted: Set<string>) {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return;
  if (req.headers['sec-fetch-site'] === 'cross-site')
    throw new AppError('CSRF_REJECTED', 'Cross-site request refused', 403);
  const origin = req.headers.origin;
  if (origin && !trusted.has(origin)) throw new AppError('CSRF_REJECTED', 'Origin not allowed', 403);
}

/**
 * The gateway: strips client-sent identity, authenticates `/api/v1/*` once and forwards a short-lived signed
 * identity, routes by the route table. Public ingest paths skip Express entirely.
 */
export function createGateway(deps: GatewayDeps) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 30_000 });
  const forwards = new Map<ServiceName, Forward>();
  for (const [name, target] of Object.entries(deps.targets) as [ServiceName, Target][]) {
    forwards.set(name, forwarder(target, agent, deps.logger));
  }
  const trusted = new Set(deps.trustedOrigins);
  const ingest = forwards.get('ingest');

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestId());
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.use(async (req, res, next) => {
    const route = matchRoute(deps.routes, req.path);
    if (!route) return next();
    const forward = forwards.get(route.service);
    if (!forward) return next(new AppError('NOT_FOUND', 'Not found', 404));
    if (route.auth === 'identity') {
      checkCsrf(req, trusted);
      const identity = await deps.authenticate(req);
      if (!identity) throw unauthenticated();
      req.identityToken = await deps.signer.sign(identity);
      req.headers[IDENTITY_HEADER] = req.identityToken;
    }
    forward(req, res, next);
  });
  if (deps.webDir && existsSync(join(deps.webDir, 'index.html'))) {
    const webDir = deps.webDir;
    app.use(express.static(webDir, { index: false, maxAge: '1h' }));
    app.get(/^\/(?!api\/).*/, (_req, res) => res.sendFile(join(webDir, 'index.html')));
  }
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND', 'Not found', 404)));
  app.use(errorHandler(deps.logger));

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    delete req.headers[IDENTITY_HEADER];
    if (ingest && req.url && isPublicIngestPath(req.url)) {
      delete req.headers.cookie;
      ingest(req as Request, res as Response, () => {});
      return;
    }
    app(req, res);
  };

  return { handle, close: () => agent.destroy() };
}
