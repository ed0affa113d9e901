import { existsSync } from 'node:fs';
import { Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type Accounts, type Caller, CLIENT_IP_HEADER } from '@formgate/accounts';
import { authorize, SITE_ORG_ID, type SiteConfig } from '@formgate/contracts';
import { API_ROUTE_LIST, type RouteAccess, type ServiceName } from '@formgate/contracts/routes';
import {
  AppError,
  assertJsonMutation,
  errorHandler,
  forbidden,
  IDENTITY_HEADER,
  type Identity,
  type IdentitySigner,
  type Logger,
  type Metrics,
  OPERATOR_ROLE,
  requestId,
  type StoreHealth,
  secondsSince,
  type Tracing,
  unauthenticated,
} from '@formgate/kit';
import { toNodeHandler } from 'better-auth/node';
import express, { type NextFunction, type Request, type Response } from 'express';
import { apiReferenceRoutes, openApiRoutes } from './api-docs.routes.ts';
import { clientIp } from './client-ip.ts';
import { createForwarders } from './forwarders.ts';
import { createDeadLetterGauge, type OperatorDeps, operatorRoutes } from './operator.routes.ts';
import { createRouter, isPublicIngestPath } from './routes.ts';
import { siteRoutes } from './site.routes.ts';
import type { Target } from './target.ts';

export type { Target } from './target.ts';

const DEFAULT_SITE: SiteConfig = {
  productName: 'Formgate',
  plans: [],
  forms: { feedback: null, waitlist: null, example: null },
};

export interface GatewayDeps {
  targets: Partial<Record<ServiceName, Target>>;
  /** better-auth, the authenticator and the routes the gateway answers itself (`createAccounts`). */
  accounts: Pick<Accounts, 'authHandler' | 'authenticate' | 'routes'>;
  signer: IdentitySigner;
  logger: Logger;
  /** The process's stores, probed by a real round trip: an unknown error while one is down answers 503, not 500. */
  storeHealth?: StoreHealth;
  /** Origins allowed to send mutations with credentials (the dashboard's own origin). */
  trustedOrigins: string[];
  /** Peers whose `X-Forwarded-For` is believed (a load balancer in front of the gateway). */
  trustedProxies?: string[];
  /** The operator API (`/api/ops/*`: dead letters, site owners); absent, it answers 404. */
  operator?: OperatorDeps;
  /** Built dashboard (`web/dist`), served for every other GET. */
  webDir?: string;
  /** Scalar's `standalone.js` for `/docs/api` (`API_REFERENCE_BUNDLE`); absent, resolved from node_modules. */
  apiReferenceBundle?: string;
  /** The public site's configuration (`GET /api/v1/site`); read on every call, so the host may fill it in late. */
  site?: () => SiteConfig;
  /** `PUBLIC_URL`: the server of `/api/v1/openapi.json` (absent: `/`, the document's own origin). */
  publicUrl?: string;
  /** Deadline for an API service's response headers (default 10 s). */
  upstreamTimeoutMs?: number;
  /** Deadline for ingest's response headers (default 15 s: its answer includes the log append). */
  ingestTimeoutMs?: number;
  /** The process's metrics: every answer counted in `formgate_http_*` with `service="gateway"`. */
  metrics?: Metrics;
  /** The process's tracing (`startTracing`): a SERVER span per request when on; absent: off. */
  tracing?: Tracing | undefined;
}

/**
 * The route label of a request the route table did not name (`res.locals.route` names the others): a handful of
 * fixed values, never the raw path.
 */
export function gatewayRouteOf(url: string): string {
  const path = url.split('?', 1)[0] ?? '/';
  if (path.startsWith('/api/auth/')) return '/api/auth/*';
  if (path.startsWith('/api/ops/')) return '/api/ops/*';
  if (path === '/healthz') return '/healthz';
  if (path.startsWith('/api/')) return 'unmatched';
  return 'web';
}

/** Records `formgate_http_*` when the answer is sent; `route` read then (the route table match sets it). */
function observeAnswer(metrics: Metrics, req: IncomingMessage, res: ServerResponse, route: (() => string) | string) {
  const started = process.hrtime.bigint();
  res.once('finish', () =>
    metrics.observeHttp(
      'gateway',
      typeof route === 'string' ? route : route(),
      req.method ?? 'GET',
      res.statusCode,
      secondsSince(started),
    ),
  );
}

/** Fetch-Metadata and Origin checks: a cross-site page cannot drive a mutation with the user's cookies. */
function checkCsrf(req: Request, trusted: Set<string>) {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method)) return;
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new AppError('CSRF_REJECTED');
  const origin = req.headers.origin;
  if (origin && !trusted.has(origin)) throw new AppError('CSRF_REJECTED', 'Origin not allowed');
}

/** Applies the route's access rules to the resolved caller; returns the identity to forward, if any. */
function admit(route: RouteAccess, caller: Caller | null): Identity | undefined {
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
  if (caller.via === 'session' && caller.unmetSignInRequirement) throw new AppError(caller.unmetSignInRequirement);
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
 * The gateway: better-auth at `/api/auth/*`, then the route table (`API_ROUTES` of `@formgate/contracts/routes`): each `/api/v1` call is authenticated once,
 * checked against its route's rules and forwarded with a short-lived signed identity. A client's identity header is
 * always dropped; public ingest paths skip Express entirely and carry no cookies.
 */
export function createGateway(deps: GatewayDeps) {
  // Idle pooled sockets close after 30 s, before the services' 65 s keep-alive: a reused one is rarely stale.
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 30_000, timeout: 30_000 });
  const { forwards, ingest, health } = createForwarders(deps.targets, {
    agent,
    logger: deps.logger,
    upstreamTimeoutMs: deps.upstreamTimeoutMs ?? 10_000,
    ingestTimeoutMs: deps.ingestTimeoutMs ?? 15_000,
  });
  const trusted = new Set(deps.trustedOrigins);
  const proxies = new Set(deps.trustedProxies ?? []);
  const router = createRouter(API_ROUTE_LIST);
  const local = express.Router();
  local.use(express.json({ limit: '64kb' }));
  local.use(deps.accounts.routes);
  local.use(siteRoutes(deps.site ?? (() => DEFAULT_SITE)));
  local.use(openApiRoutes(deps.publicUrl));

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestId());
  app.use('/api', requestLog(deps.logger));
  const deadLetters = deps.operator ? createDeadLetterGauge(deps.operator.bus) : undefined;
  app.get(
    '/healthz',
    (_req, res) =>
      void res.json({
        status: 'ok',
        upstreams: health(),
        ...(deadLetters ? { deadLetters: deadLetters.snapshot() } : {}),
      }),
  );
  app.all('/api/auth/*splat', toNodeHandler(deps.accounts.authHandler));
  app.use(async (req, res, next) => {
    const found = router.find(req.method, req.path);
    if (!found) return next();
    if ('allow' in found) {
      res.setHeader('allow', found.allow.join(', '));
      throw new AppError('METHOD_NOT_ALLOWED', `Use ${found.allow.join(', ')} on this path`);
    }
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
  if (deps.operator)
    app.use(
      '/api/ops',
      operatorRoutes({
        ...deps.operator,
        // The operator reads an organization's chain as one of its owners would: the orgs service's own route.
        auditChain: async (orgId, req, res, next) => {
          const forward = forwards.get('orgs');
          if (!forward) throw new AppError('UPSTREAM_UNAVAILABLE');
          const identity = { userId: 'operator', email: null, orgId, roles: ['owner'], via: 'session' as const };
          req.identityToken = await deps.signer.sign(identity);
          const query = req.url.indexOf('?');
          req.url = `/api/v1/orgs/audit-log/chain${query < 0 ? '' : req.url.slice(query)}`;
          forward(req, res, next);
        },
        // The forms service's internal route, as the operator (a role no member has).
        fileSweep: async (req, res, next) => {
          const forward = forwards.get('forms');
          if (!forward) throw new AppError('UPSTREAM_UNAVAILABLE');
          const identity = {
            userId: 'operator',
            email: null,
            orgId: SITE_ORG_ID,
            roles: [OPERATOR_ROLE],
            via: 'session' as const,
          };
          req.identityToken = await deps.signer.sign(identity);
          forward(req, res, next);
        },
      }),
    );
  app.use('/api', (_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(apiReferenceRoutes(deps.apiReferenceBundle));
  if (deps.webDir && existsSync(join(deps.webDir, 'index.html'))) {
    const webDir = deps.webDir;
    // Vite's hashed files never change; everything else (index.html above all) is revalidated on every load.
    app.use(
      express.static(webDir, {
        index: false,
        cacheControl: false,
        setHeaders: (res, path) =>
          res.setHeader(
            'cache-control',
            path.startsWith(join(webDir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache',
          ),
      }),
    );
    // History fallback: every other GET is a route of the single-page app.
    app.get(/^\/(?!api\/).*/, (_req, res) => {
      res.setHeader('cache-control', 'no-cache');
      res.sendFile(join(webDir, 'index.html'));
    });
  }
  app.use((_req, _res, next) => next(new AppError('NOT_FOUND')));
  app.use(errorHandler(deps.logger, deps.storeHealth));

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    delete req.headers[IDENTITY_HEADER];
    const ip = clientIp(req, proxies);
    req.headers[CLIENT_IP_HEADER] = ip;
    const metrics = deps.metrics;
    if (ingest && req.url && isPublicIngestPath(req.url)) {
      if (metrics) observeAnswer(metrics, req, res, req.url.startsWith('/f/') ? '/f/*' : '/form/*');
      delete req.headers.cookie;
      ingest(req, res, { 'x-forwarded-for': ip, [CLIENT_IP_HEADER]: ip });
      return;
    }
    if (metrics) {
      // The URL as it arrived: a sub-router rewrites `req.url` while it handles the request.
      const url = req.url ?? '/';
      const r = res as Response;
      observeAnswer(metrics, req, res, () => (r.locals?.route as string | undefined) ?? gatewayRouteOf(url));
    }
    app(req, res);
  };
  // Tracing (ADR 51): one SERVER span per request, a new trace (a client's `traceparent` is not trusted at the
  // edge); the services get the span's `traceparent` instead, in process and through the proxies alike.
  const traces = deps.tracing;
  const handle = !traces
    ? serve
    : (req: IncomingMessage, res: ServerResponse) => {
        const url = req.url ?? '/';
        const route = () =>
          isPublicIngestPath(url)
            ? url.startsWith('/f/')
              ? '/f/*'
              : '/form/*'
            : (((res as Response).locals?.route as string | undefined) ?? gatewayRouteOf(url));
        traces.server(req.method ?? 'GET', route, res, undefined, () => {
          traces.inject(req.headers);
          serve(req, res);
        });
      };

  return { handle, close: () => agent.destroy() };
}
