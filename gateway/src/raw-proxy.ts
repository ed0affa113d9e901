import {
  type Agent,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { AppError, type ErrorCode, type Logger } from '@formgate/kit';

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

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
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
 * A plain streaming reverse proxy for the public ingest path, where every microsecond is a submission per second
 * (ADR 12): `node:http` over the gateway's keep-alive agent, round-robin over the instances, hop-by-hop headers
 * dropped both ways. The proxy frames the upstream body itself, from what the gateway's own parser read: the
 * client's Content-Length, else chunked when the client sent a body, else no body at all — so no header a client
 * sends can make a body run on into the next request on a pooled connection. `forwarded` headers (the client IP
 * the gateway resolved) are set last and cannot be removed by the client. An unreachable instance answers 503 +
 * Retry-After, like the log being unavailable; an answer given before the whole body was sent (413, 404) reaches
 * the client as it is, and the rest of the body is discarded.
 */
export function createRawProxy(opts: { urls: string[]; agent: Agent; logger: Logger; timeoutMs?: number }) {
  const targets = opts.urls.map((u) => new URL(u));
  let next = 0;
  return (req: IncomingMessage, res: ServerResponse, forwarded: Record<string, string>) => {
    const target = targets[next++ % targets.length] as URL;
    const headers = endToEnd(req.headers);
    const contentLength = req.headers['content-length'];
    const hasBody = contentLength !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (contentLength === undefined && hasBody) headers['transfer-encoding'] = 'chunked';
    headers.host = target.host;
    if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
    headers['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
    Object.assign(headers, forwarded);

    let answered = false;
    const fail = (code: ErrorCode, err?: Error) => {
      if (answered || res.destroyed) return;
      answered = true;
      if (err) opts.logger.warn({ err: { message: err.message }, target: target.origin }, 'upstream unavailable');
      const error = new AppError(code);
      res.shouldKeepAlive = false;
      const retryAfter = error.retryable ? { 'retry-after': String(error.retryAfterSeconds ?? 1) } : {};
      res
        .writeHead(error.status, { 'content-type': 'application/json', ...retryAfter })
        .end(JSON.stringify({ error: { code: error.code, message: error.message } }));
      req.resume();
    };

    let upstream: ClientRequest;
    try {
      upstream = request({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: opts.agent,
        timeout: opts.timeoutMs ?? 30_000,
      });
    } catch {
      // A header value node:http will not send (its parser let it in): refuse rather than crash the gateway.
      return fail('MALFORMED_REQUEST');
    }
    upstream.on('response', (answer) => {
      answered = true;
      if (!req.complete) {
        // Answered before the whole body (e.g. 413): stop sending it, drop the rest, close after this answer.
        req.unpipe(upstream);
        req.resume();
        res.shouldKeepAlive = false;
      }
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    // Once the answer has started, a write error on the body (the instance closed after answering) changes nothing.
    upstream.on('error', (err) => fail('UPSTREAM_UNAVAILABLE', err));
    // The client went away before the answer: stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (hasBody) req.pipe(upstream);
    else upstream.end();
  };
}
