import type { Agent, ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { API_BODY_LIMIT_BYTES } from '@formgate/contracts';
import { AppError, type Logger, lingerThenClose } from '@formgate/kit';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { upstreamHeaders } from './forward-headers.ts';
import { relayAnswer, SAFE_METHODS, wasReusedAndReset, whenConnected, whenStalled } from './relay.ts';
import type { Upstream, UpstreamPool } from './upstreams.ts';

export interface ApiProxyOptions {
  pool: UpstreamPool;
  agent: Agent;
  logger: Logger;
  /** Deadline for the instance's response headers, counted from when the whole request was handed to it. */
  timeoutMs: number;
  /** A connection not established within this is treated like a refused one (default 2 s). */
  connectTimeoutMs?: number;
  /** Called with an instance's answer before it is relayed (it may edit its headers); a promise holds the relay. */
  beforeRelay?: (answer: IncomingMessage) => Promise<void> | undefined;
}

/**
 * Forwards one API call. `forwarded` (client IP, identity, request id) is set last on the upstream request; `fail`
 * answers what could not be forwarded (the API's error handler).
 */
export type ApiProxy = (
  req: IncomingMessage,
  res: ServerResponse,
  forwarded: Record<string, string>,
  fail: (error: AppError) => void,
) => void;

/** One API call on its way through the pool: its body, the instances tried so far, whether it is answered. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  headers: OutgoingHttpHeaders;
  hasBody: boolean;
  body: Buffer;
  fail: (error: AppError) => void;
  tried: Set<Upstream>;
  /** Pooled connections found reset so far (each one may be retried, on any instance, twice at most). */
  resets: number;
  /** An answer (the instance's or an error) has started, or the client left: nothing is retried any more. */
  settled: boolean;
  attempt?: Attempt;
}

/** One try on one instance, from the router's choice to its answer or error. */
interface Attempt {
  target: Upstream;
  /** The held body, as the stream the proxy pipes to the instance on this try. */
  source: Readable;
  request?: ClientRequest;
  /** The socket reached the instance: from here on the request is sent again only if that is harmless. */
  connected: boolean;
  timedOut: boolean;
  timer?: NodeJS.Timeout;
}

/**
 * The API's proxy (ADR 100): http-proxy-middleware over one pool of instances (ADR 16) and the gateway's keep-alive
 * agent. The body is read whole first (at most 1 MiB, else 413). The `router` picks a healthy instance this call has
 * not tried (none left: 503 `UPSTREAM_UNAVAILABLE` at once) and hands the proxy the held body for that try; a plugin
 * on the proxy's events does the rest:
 * - a connection refused, or not established within `connectTimeoutMs`, marks the instance down and the call —
 *   body included — goes to the next instance: nothing reached the refused one;
 * - once connected, a call is sent again only when its pooled connection was reset before any answer and resending
 *   is harmless (a body-less GET/HEAD/OPTIONS, or an `Idempotency-Key`), twice at most; anything else an instance
 *   may have acted on is 503;
 * - no response headers within `timeoutMs` of the request being sent: 504 `UPSTREAM_TIMEOUT`, the instance marked
 *   down;
 * - upstream headers are rebuilt from `upstreamHeaders` (end-to-end only, framed by the held body's length), and the
 *   answer is relayed by `relayAnswer` once `beforeRelay` lets it.
 */
export function createApiProxy(opts: ApiProxyOptions): ApiProxy {
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const exchangeOf = (req: IncomingMessage) => exchanges.get(req) as Exchange;

  const failover: Plugin = (proxy) => {
    proxy.on('proxyReq', (request, req) => {
      const x = exchangeOf(req);
      const a = x.attempt as Attempt;
      a.request = request;
      for (const name of request.getHeaderNames()) request.removeHeader(name);
      try {
        for (const [name, value] of Object.entries(x.headers)) if (value !== undefined) request.setHeader(name, value);
      } catch (err) {
        // A header value node:http will not send (its parser let it in): refused, and no instance is blamed.
        return request.destroy(err as Error);
      }
      request.setHeader('host', a.target.url.host);
      whenConnected(
        request.socket as NonNullable<ClientRequest['socket']>,
        opts.connectTimeoutMs ?? 2_000,
        (err) => request.destroy(err),
        () => {
          a.connected = true;
        },
      );
      const expire = () => {
        a.timedOut = true;
        request.destroy(new Error('upstream timed out'));
      };
      // An instance that stops taking the body midway has timed out too.
      whenStalled(a.source, opts.timeoutMs, () => {
        if (!x.settled && x.attempt === a) expire();
      });
      request.on('finish', () => {
        if (!x.settled) a.timer = setTimeout(expire, opts.timeoutMs);
      });
      request.on('close', () => clearTimeout(a.timer));
    });
    proxy.on('proxyRes', (answer, req, res) => {
      const x = exchangeOf(req);
      const a = x.attempt as Attempt;
      clearTimeout(a.timer);
      if (res.headersSent || res.destroyed) return void answer.destroy();
      opts.pool.markUp(a.target);
      x.settled = true;
      const relay = () => relayAnswer(res, answer, () => answer.destroy());
      const held = opts.beforeRelay?.(answer);
      if (!held) return relay();
      held
        .catch((err) => opts.logger.warn({ err, pool: opts.pool.name }, 'answer not held until settled'))
        .then(() => {
          if (!res.destroyed) relay();
        })
        .catch(() => res.destroy());
    });
    proxy.on('error', (err, req) => {
      const x = req && exchanges.get(req);
      if (!x || x.settled) return;
      const a = x.attempt as Attempt;
      const code = (err as NodeJS.ErrnoException).code ?? err.message;
      if (/^ERR_(HTTP_)?INVALID/.test(code)) return settle(x, new AppError('MALFORMED_REQUEST'));
      if (!a.connected) {
        opts.pool.markDown(a.target, code);
        return forward(x);
      }
      if (a.request && wasReusedAndReset(a.request, code) && resendable(x) && !a.timedOut && x.resets++ < 2) {
        // Most likely a keep-alive connection the instance closed as it was reused: the same instance may answer.
        x.tried.delete(a.target);
        return forward(x);
      }
      opts.logger.warn({ upstream: a.target.url.origin, pool: opts.pool.name, reason: code }, 'upstream failed');
      if (a.timedOut) opts.pool.markDown(a.target, 'timeout');
      settle(x, new AppError(a.timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE'));
    });
    // The client went away: the proxy has already stopped the upstream request.
    proxy.on('econnreset', () => {});
  };

  const middleware = createProxyMiddleware({
    router: (req, _res, options) => {
      const x = exchangeOf(req);
      const target = opts.pool.pick(x.tried);
      if (!target) throw new AppError('UPSTREAM_UNAVAILABLE');
      x.tried.add(target);
      const source = Readable.from(x.body.length > 0 ? [x.body] : []);
      x.attempt = { target, source, connected: false, timedOut: false };
      // `options` is this call's own copy of the proxy's options: the body to send on this try.
      options.buffer = source;
      return target.url.origin;
    },
    agent: opts.agent,
    selfHandleResponse: true,
    ejectPlugins: true,
    plugins: [failover],
  });

  /** One try; what the router throws (no instance left) is answered as the failure. */
  const forward = (x: Exchange) => void middleware(x.req, x.res, (err) => settle(x, err));

  const start = (x: Exchange) => {
    exchanges.set(x.req, x);
    x.res.on('close', () => {
      if (!x.res.writableFinished) x.settled = true;
    });
    forward(x);
  };

  return (req, res, forwarded, fail) => {
    // The gateway answered any `Expect: 100-continue` itself; passed on, it would stop the proxy's request events.
    delete req.headers.expect;
    hold(req)
      .then((body) => {
        if (res.destroyed) return;
        const { headers, hasBody } = upstreamHeaders(req, forwarded, body.length);
        start({ req, res, fail, headers, hasBody, body, tried: new Set(), resets: 0, settled: false });
      }, fail)
      .catch(() => res.destroy());
  };
}

/** Harmless to send again: no body and a safe method, or a whole body whose `Idempotency-Key` makes a resend a no-op. */
function resendable(x: Exchange) {
  return (SAFE_METHODS.has(x.req.method ?? '') && !x.hasBody) || x.req.headers['idempotency-key'] !== undefined;
}

function settle(x: Exchange, error: unknown) {
  if (x.settled) return;
  x.settled = true;
  x.fail(error instanceof AppError ? error : new AppError('UPSTREAM_UNAVAILABLE'));
}

/**
 * Reads the whole body. More than `API_BODY_LIMIT_BYTES` is 413; the rest of it is read and dropped before the
 * connection closes.
 */
function hold(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= API_BODY_LIMIT_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.off('end', onEnd);
      lingerThenClose(req);
      reject(new AppError('PAYLOAD_TOO_LARGE'));
    };
    const onEnd = () => resolve(Buffer.concat(chunks, bytes));
    req.on('data', onData);
    req.once('end', onEnd);
    // A client that left mid-body: nobody reads the answer.
    req.once('error', () => reject(new AppError('MALFORMED_REQUEST')));
  });
}
