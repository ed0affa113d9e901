import { type Agent, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { Logger } from '@formgate/kit';

/** RFC 9110 §7.6.1: meaningful for one connection only, never forwarded (plus any the Connection header names). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}

const UNAVAILABLE = JSON.stringify({
  error: { code: 'UPSTREAM_UNAVAILABLE', message: 'Service unavailable, retry shortly' },
});

/**
 * A plain streaming reverse proxy for the public ingest path, where every microsecond is a submission per second:
 * `node:http` over the gateway's keep-alive agent, round-robin over the instances, the body piped both ways,
 * hop-by-hop headers dropped. The API routes keep http-proxy-middleware (identity headers, error shapes); this
 * path needs none of that. An unreachable instance answers 503 + Retry-After, like the log being unavailable.
 */
export function createRawProxy(opts: { urls: string[]; agent: Agent; logger: Logger; timeoutMs?: number }) {
  const targets = opts.urls.map((u) => new URL(u));
  let next = 0;
  return (req: IncomingMessage, res: ServerResponse, clientIp: string) => {
    const target = targets[next++ % targets.length] as URL;
    const headers = endToEnd(req.headers);
    headers.host = target.host;
    headers['x-forwarded-for'] = clientIp;
    headers['x-forwarded-host'] = req.headers.host;
    headers['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
    const upstream = request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: opts.agent,
        timeout: opts.timeoutMs ?? 30_000,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    const fail = (err: Error) => {
      if (res.destroyed) return;
      opts.logger.warn({ err: { message: err.message }, target: target.origin }, 'upstream unavailable');
      if (res.headersSent) return void res.destroy();
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '2', connection: 'close' })
        .end(UNAVAILABLE);
      req.resume();
    };
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', fail);
    // The client went away before the answer: stop the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
