import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument } from '@formgate/contracts/openapi';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, mountRoute } from '@formgate/kit';
import { Router } from 'express';

/**
 * `GET /api/v1/openapi.json`: the API's OpenAPI 3.1 description, built once from the route table of
 * `@formgate/contracts/routes`. Its server is `PUBLIC_URL` when set, else `/` (the origin it was
 * fetched from: a client's `Host` header is never trusted into it).
 */
export function openApiRoutes(publicUrl?: string) {
  const router = Router();
  let body: string | undefined;
  mountRoute(router, API_ROUTES.getOpenApiDocument, (_req, res) => {
    body ??= JSON.stringify(buildOpenApiDocument(publicUrl ? { serverUrl: publicUrl } : {}));
    res.set('cache-control', 'public, max-age=300').type('application/json').send(body);
  });
  return router;
}

/**
 * Scalar's self-contained browser build, from node_modules: no CDN (many self-hosts are offline). The production
 * image has no `@scalar` package installed; its runtime tree carries this one file and names it instead
 * (`API_REFERENCE_BUNDLE`, ADR 47).
 */
function scalarBundle(): string | undefined {
  try {
    const css = createRequire(import.meta.url).resolve('@scalar/api-reference/style.css');
    const bundle = join(dirname(css), 'browser', 'standalone.js');
    return existsSync(bundle) ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Scripts from this origin only (no inline script: the page's setup is `init.js`), the document fetched from this
 * origin only (Scalar's proxy and telemetry are off, and the policy would refuse them anyway). Styles may be inline:
 * the bundle injects its own.
 */
export const API_REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Formgate API reference</title></head>
<body><div id="api-reference"></div><script src="/docs/api/scalar.js"></script><script src="/docs/api/init.js"></script></body>
</html>
`;

// Nothing that calls Scalar's services (agent, MCP, telemetry) and no web fonts: the system's own fonts instead.
const INIT = `Scalar.createApiReference('#api-reference', {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  customCss: ':root { --scalar-font: system-ui, sans-serif; --scalar-font-code: ui-monospace, monospace; }',
});
`;

/**
 * `/docs/api`: a browsable reference of `/api/v1/openapi.json`; 404 when the bundle is not installed.
 * `bundlePath`: Scalar's `standalone.js` at a given path (else resolved from node_modules).
 */
export function apiReferenceRoutes(bundlePath?: string) {
  const router = Router();
  const bundle = bundlePath === undefined ? scalarBundle() : existsSync(bundlePath) ? bundlePath : undefined;
  const headers = { 'content-security-policy': API_REFERENCE_CSP, 'x-content-type-options': 'nosniff' };
  router.use('/docs/api', (req, _res, next) => {
    if (!bundle) return next(new AppError('NOT_FOUND', 'The API reference is not installed; see /api/v1/openapi.json'));
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(new AppError('METHOD_NOT_ALLOWED'));
    next();
  });
  router.get('/docs/api', (_req, res) => {
    res
      .set({ ...headers, 'cache-control': 'no-cache' })
      .type('html')
      .send(PAGE);
  });
  router.get('/docs/api/init.js', (_req, res) => {
    res
      .set({ ...headers, 'cache-control': 'no-cache' })
      .type('text/javascript')
      .send(INIT);
  });
  router.get('/docs/api/scalar.js', (_req, res) => {
    // pnpm's store is under `node_modules/.pnpm`: a dot directory `send` refuses unless told.
    res.set(headers).type('text/javascript');
    res.sendFile(bundle as string, { maxAge: '1d', dotfiles: 'allow' });
  });
  return router;
}
