import { existsSync } from 'node:fs';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type Accounts, type Caller, CLIENT_IP_HEADER } from '@formgate/accounts';
import type { EventBus } from '@formgate/bus';
import { authorize } from '@formgate/contracts';
import {
  AppError,
  assertJsonMutation,
  errorHandler,
  forbidden,
  IDENTITY_HEADER,
  type Identity,
  type IdentitySigner,
  type Logger,
  requestId,
  toErrorBody,
  unauthenticated,
} from '@formgate/kit';
import { toNodeHandler } from 'better-auth/node';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { clientIp } from './client-ip.ts';
import { createDeadLetterGauge, operatorRoutes } from './operator.routes.ts';
import { createRawProxy } from './raw-proxy.ts';
import { createRouter, isPublicIngestPath, type RouteSpec, type ServiceName } from './routes.ts';

/** A service the gateway forwards to: in the same process (embedded), or over HTTP (distributed). */
export type Target =
  | { kind: 'in-process'; app: Express; handle?: (req: IncomingMessage, res: ServerResponse) => void }
  | { kind: 'http'; urls: string[] };

export interface GatewayDeps {
  routes: readonly RouteSpec[];
  targets: Partial<Record<ServiceName, Target>>;
  /** better-auth, the authenticator and the routes the gateway answers itself (`createAccounts`). */
  accounts: Pick<Accounts, 'auth' | 'authenticate' | 'routes'>;
  signer: IdentitySigner;
  logger: Logger;
  /** Origins allowed to send mutations with credentials (the dashboard's own origin). */
  trustedOrigins: string[];
  /** Peers whose `X-Forwarded-For` is believed (a load balancer in front of the gateway). */
  trustedProxies?: string[];
  /** The operator API (`/api/ops/*`: dead letters); absent, it answers 404. */
  operator?: { token: string; bus: EventBus };
  /** Built dashboard (`web/dist`), served for every other GET. */
  webDir?: string;
}

type Forward = (req: Request, res: Response, next: NextFunction) => void;

function forwarder(target: Target, agent: Agent, logger: Logger): Forward {
  if (target.kind === 'in-process') return (req, res) => (target.handle ?? target.app)(req, res);
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
        proxyReq.removeHeader('cookie');
        const token = (req as Request).identityToken;
        if (token) proxyReq.setHeader(IDENTITY_HEADER, token);
      },
      error: (err, req, res) => {
        logger.warn({ err: { message: (err as Error).message }, target: target.urls }, 'upstream unavailable');
        const r = res as ServerResponse;
        const error = new AppError('UPSTREAM_UNAVAILABLE');
        const requestId = (req as Request).requestId ?? '';
        if (!r.headersSent)
          r.writeHead(error.status, {
            'content-type': 'application/json',
            'retry-after': String(error.retryAfterSeconds),
          });
        r.end(JSON.stringify(toErrorBody(error, requestId)));
      },
    },
  }) as unknown as Forward;
}

/** Fetch-Metadata and Origin checks: a cross-site page cannot drive a mutation with the user's cookies. */
function checkCsrf(req: Request, trusted: Set<string>) {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return;
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new AppError('CSRF_REJECTED');
  const origin = req.headers.origin;
  if (origin && !trusted.has(origin)) throw new AppError('CSRF_REJECTED', 'Origin not allowed');
}

/** Applies the route's access rules to the resolved caller; returns the identity to forward, if any. */
function admit(route: RouteSpec, caller: Caller | null): Identity | undefined {
  if (!caller) throw unauthenticated();
  if (route.auth === 'user') {
    if (caller.via !== 'session') throw forbidden('Sign in to use this endpoint; API keys cannot');
    return undefined;
  }
  if (caller.via === 'api-key') {
    if (!route.apiKey) throw forbidden('Sign in to use this endpoint; API keys cannot');
    if (route.apiKey === 'write' && caller.scope === 'read') throw forbidden('This API key is read-only');
  }
  if (!caller.orgId) throw new AppError('NO_ACTIVE_ORGANIZATION');
  if (route.permission) {
    const verdict = authorize(caller.roles, route.permission);
    if (!verdict.success) throw forbidden(verdict.error);
  }
  return caller.via === 'session'
    ? { userId: caller.userId, email: caller.email, orgId: caller.orgId, roles: caller.roles, via: 'session' }
    : { userId: `apikey:${caller.keyId}`, email: null, orgId: caller.orgId, roles: caller.roles, via: 'api-key' };
}

/**
 * One info line per API request when its answer is sent: method, route pattern (never the ids in the path), status,
 * duration and request id. Never headers or bodies. The public ingest path is not logged: it is the hot path, and
 * ingest logs its own failures.
 */
function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = (res.locals.route as string | undefined) ?? (req.path.startsWith('/auth/') ? '/api/auth/*' : null);
      logger.info(
        {
          method: req.method,
          route,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          requestId: req.requestId,
        },
        'api request',
      );
    });
    next();
  };
}

/**
 * The gateway: better-auth at `/api/auth/*`, then the route table: each `/api/v1` call is authenticated once,
 * checked against its route's rules and forwarded with a short-lived signed identity. A client's identity header is
 * always dropped; public ingest paths skip Express entirely and carry no cookies.
 */
export function createGateway(deps: GatewayDeps) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 30_000 });
  const forwards = new Map<ServiceName, Forward>();
  for (const [name, target] of Object.entries(deps.targets) as [ServiceName, Target][]) {
    forwards.set(name, forwarder(target, agent, deps.logger));
  }
  const trusted = new Set(deps.trustedOrigins);
  const proxies = new Set(deps.trustedProxies ?? []);
  const router = createRouter(deps.routes);
  const ingestTarget = deps.targets.ingest;
  const ingest =
    ingestTarget?.kind === 'http'
      ? createRawProxy({ urls: ingestTarget.urls, agent, logger: deps.logger })
      : ingestTarget &&
        ((req: IncomingMessage, res: ServerResponse) => (ingestTarget.handle ?? ingestTarget.app)(req, res));
  const local = express.Router();
  local.use(express.json({ limit: '64kb' }));
  local.use(deps.accounts.routes);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestId());
  app.use('/api', requestLog(deps.logger));
  const deadLetters = deps.operator ? createDeadLetterGauge(deps.operator.bus) : undefined;
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', deadLetters: deadLetters?.snapshot() ?? null }));
  app.all('/api/auth/*splat', toNodeHandler(deps.accounts.auth));
  app.use(async (req, res, next) => {
    const found = router.find(req.method, req.path);
    if (!found) return next();
    if (found === 'method-not-allowed') throw new AppError('METHOD_NOT_ALLOWED');
    const { route } = found;
    res.locals.route = route.path;
    if (route.auth !== 'public') {
      checkCsrf(req, trusted);
      assertJsonMutation(req);
      const caller = await deps.accounts.authenticate(req);
      const identity = admit(route, caller);
      req.caller = caller ?? undefined;
      if (identity) {
        req.identityToken = await deps.signer.sign(identity);
        req.headers[IDENTITY_HEADER] = req.identityToken;
      }
    }
    if (route.service === 'gateway') return local(req, res, next);
    const forward = forwards.get(route.service);
    if (!forward) throw new AppError('UPSTREAM_UNAVAILABLE');
    forward(req, res, next);
  });
  if (deps.operator) app.use('/api/ops', operatorRoutes(deps.operator));
  app.use('/api', (_req, _res, next) => next(new AppError('NOT_FOUND')));
  if (deps.webDir && existsSync(join(deps.webDir, 'index.html'))) {
    const webDir = deps.webDir;
    app.use(express.static(webDir, { index: false, maxAge: '1h' }));
    app.get(/^\/(?!api\/).*/, (_req, res) => res.sendFile(join(webDir, 'index.html')));
  }
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(errorHandler(deps.logger));

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    delete req.headers[IDENTITY_HEADER];
    const ip = clientIp(req, proxies);
    req.headers[CLIENT_IP_HEADER] = ip;
    if (ingest && req.url && isPublicIngestPath(req.url)) {
      delete req.headers.cookie;
      ingest(req, res, { 'x-forwarded-for': ip, [CLIENT_IP_HEADER]: ip });
      return;
    }
    app(req, res);
  };

  return { handle, close: () => agent.destroy() };
}
