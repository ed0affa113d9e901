import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IngestErrorBody } from '@formgate/contracts';
import { type AppError, lingerThenClose } from '@formgate/kit';

export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers':
    'Content-Type, Accept, X-Requested-With, Idempotency-Key, Content-Encoding, Formspree-Client, Formspree-Session-Data',
  'access-control-max-age': '86400',
} as const;

/** JSON for `Accept: application/json` or `X-Requested-With` (Formspree's rule); HTML redirects otherwise. */
export function wantsJson(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('application/json') || req.headers['x-requested-with'] !== undefined;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string) {
  res.writeHead(status, { ...CORS_HEADERS, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  send(res, status, { 'content-type': 'application/json; charset=utf-8', ...headers }, JSON.stringify(body));
}

export function sendRedirect(res: ServerResponse, location: string) {
  send(res, 303, { location, 'content-type': 'text/plain; charset=utf-8' }, 'See Other');
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) {
  send(
    res,
    status,
    {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
      ...headers,
    },
    html,
  );
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1rem;color:#222}a{color:#2456d3}</style></head><body>${body}</body></html>`;
}

/** An error, in Formspree's wire format for JSON clients, as a small page otherwise. Always with CORS headers. */
export function sendError(req: IncomingMessage, res: ServerResponse, err: AppError, errorRedirect?: string | null) {
  const headers: Record<string, string> = {};
  if (err.retryable) headers['retry-after'] = String(err.retryAfterSeconds ?? 1);
  if (!req.complete) lingerThenClose(req);
  if (wantsJson(req)) {
    const detail = { code: err.code, message: err.message, ...(err.field ? { field: err.field } : {}) };
    const body: IngestErrorBody = { error: err.message, errors: [detail] };
    sendJson(res, err.status, body, headers);
  } else if (errorRedirect) {
    const url = new URL(errorRedirect);
    url.searchParams.set('error', err.code);
    sendRedirect(res, url.href);
  } else {
    sendHtml(
      res,
      err.status,
      page('Submission not accepted', `<h1>Submission not accepted</h1><p>${escapeHtml(err.message)}</p>`),
      headers,
    );
  }
}
