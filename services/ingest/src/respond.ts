import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IngestErrorBody } from '@formgate/contracts';
import type { AppError } from '@formgate/kit';

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

/**
 * What a refused request may still send after its answer before the connection is cut (see `lingerThenClose`).
 * Reading and dropping is cheap; the bound is generous because a proxy in front may have megabytes in flight
 * before it sees the answer and stops — the size of the largest body ingest accepts at all (multipart).
 */
const LINGER_BYTES = 32 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * A request answered before its body was read (413, 415, 404…) may still be sending it. Closing the socket at once
 * makes our kernel answer the rest with a reset, which can destroy our answer before the client — or the gateway's
 * proxy, which then reports 503 — has read it. So: answer, keep reading and dropping what arrives, and cut the
 * connection only past `LINGER_BYTES` or `LINGER_MS`; a client that stops sending keeps its keep-alive connection.
 */
function lingerThenClose(req: IncomingMessage) {
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
