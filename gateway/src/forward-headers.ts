import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** RFC 9110 §7.6.1: meaningful for one connection only, never forwarded (plus any the Connection header names). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Never removable through `Connection`: the proxy frames the body and names the target itself. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'host']);

export function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => !FRAMING.has(h)),
  );
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  }
  return out;
}

/**
 * The headers of the upstream request, without `host` (set per instance): end-to-end headers only, framed from what
 * the gateway's own parser read — the client's Content-Length, else chunked when the client sent a body, else no
 * body; or, for a body the gateway holds whole, its length — so no header a client sends can make a body run on into
 * the next request on a pooled connection. `forwarded` (client IP, identity) is applied last and cannot be removed
 * by the client.
 */
export function upstreamHeaders(req: IncomingMessage, forwarded: Record<string, string>, heldBytes?: number) {
  const headers = endToEnd(req.headers);
  const contentLength = req.headers['content-length'];
  const hasBody = contentLength !== undefined || req.headers['transfer-encoding'] !== undefined;
  if (heldBytes !== undefined) {
    if (hasBody || heldBytes > 0) headers['content-length'] = String(heldBytes);
  } else if (contentLength === undefined && hasBody) headers['transfer-encoding'] = 'chunked';
  if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
  headers['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
  Object.assign(headers, forwarded);
  return { headers, hasBody };
}
