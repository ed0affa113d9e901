import type { Agent, ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { AppError, type Logger, lingerThenClose } from '@formgate/kit';
import type { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import { upstreamHeaders } from './forward-headers.ts';
import { relayAnswer, whenConnected } from './relay.ts';
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

/** Forwards one API request; `forwarded` (client IP, identity, request id) is set last on the upstream request. */
export type ApiProxy = (req: Request, res: Response, next: NextFunction, forwarded: Record<string, string>) => void;

/** One API request on its way through the pool: its body, held whole, and the instances tried so far. */
interface Exchange {
  body: Buffer;
  headers: OutgoingHttpHeaders;
  next: NextFunction;
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
  request?: ClientRequest;
  /** The socket reached the instance: from here on the request is sent again only if that is harmless. */
  connected: boolean;
  timedOut: boolean;
  timer?: NodeJS.Timeout;
}

/** Above any API service's own limit (64 KiB of JSON): the gateway refuses more than this itself. */
const HELD_BYTES = 1024 * 1024;
/** Safe to send again after an instance reset a pooled connection (RFC 9110 §9.2.2), as is a request with a key. */
const RESENDABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The API's forwarder (ADR 100): http-proxy-middleware over one upstream pool, with the failover of ADR 16.
 * The gateway reads the body (at most 1 MiB) before choosing an instance, so it holds what it sends: the router
 * picks a healthy instance not yet tried for this request; an instance that refused the connection (or did not
 * accept it within `connectTimeoutMs`) is marked down from the proxy's error event, and the request — body
 * included — is sent to the next one. Once connected, a request is sent again only when its pooled connection was
 * reset before any answer and resending is harmless (GET/HEAD/OPTIONS, or an `Idempotency-Key`). No instance left:
 * 503 `UPSTREAM_UNAVAILABLE`; no response headers within `timeoutMs`: 504 `UPSTREAM_TIMEOUT`, the instance marked
 * down. Headers are rebuilt from `upstreamHeaders` (end-to-end only, framed by the held body's length); the answer
 * is relayed by `relayAnswer`, once `beforeRelay` lets it.
 */
export function createApiProxy(opts: ApiProxyOptions): ApiProxy {
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const exchangeOf = (req: IncomingMessage) => exchanges.get(req) as Exchange;

  const failover: Plugin<Request, Response> = (proxy) => {
    proxy.on('proxyReq', (request, req) => {
      const x = exchangeOf(req);
      const a = x.attempt as Attempt;
      a.request = request;
      for (const name of request.getHeaderNames()) request.removeHeader(name);
      for (const [name, value] of Object.entries(x.headers)) if (value !== undefined) request.setHeader(name, value);
      request.setHeader('host', a.target.url.host);
      // The proxy then pipes the request stream, already ended, which ends the upstream request after this body.
      if (x.body.length > 0) request.write(x.body);
      whenConnected(
        request.socket as NonNullable<ClientRequest['socket']>,
        opts.connectTimeoutMs ?? 2_000,
        (err) => request.destroy(err),
        () => {
          a.connected = true;
        },
      );
      request.on('finish', () => {
        a.timer = setTimeout(() => {
          a.timedOut = true;
          request.destroy(new Error('upstream timed out'));
        }, opts.timeoutMs);
      });
      request.on('close', () => clearTimeout(a.timer));
    });
    proxy.on('proxyRes', (answer, req, res) => {
      const x = exchangeOf(req);
      const a = x.attempt as Attempt;
      clearTimeout(a.timer);
      opts.pool.markUp(a.target);
      x.settled = true;
      const relay = () => relayAnswer(res, answer, () => answer.destroy());
      const held = opts.beforeRelay?.(answer);
      if (!held) return relay();
      void held.finally(() => {
        if (!res.destroyed) relay();
      });
    });
    proxy.on('error', (err, req, res) => {
      const x = req && exchanges.get(req);
      if (!req || !x || x.settled) return;
      const a = x.attempt as Attempt;
      const code = (err as NodeJS.ErrnoException).code ?? err.message;
      if (!a.connected) {
        opts.pool.markDown(a.target, code);
        return void middleware(req, res as Response, x.next);
      }
      const resendable = RESENDABLE.has(req.method) || req.headers['idempotency-key'] !== undefined;
      if (a.request?.reusedSocket && resendable && !a.timedOut && x.resets++ < 2) {
        // Most likely a keep-alive connection the instance closed as it was reused: the same instance may answer.
        x.tried.delete(a.target);
        return void middleware(req, res as Response, x.next);
      }
      opts.logger.warn({ upstream: a.target.url.origin, pool: opts.pool.name, reason: code }, 'upstream failed');
      if (a.timedOut) opts.pool.markDown(a.target, 'timeout');
      x.settled = true;
      x.next(new AppError(a.timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE'));
    });
    // The client went away: the proxy has already stopped the upstream request.
    proxy.on('econnreset', () => {});
  };

  const middleware = createProxyMiddleware<Request, Response>({
    router: (req) => {
      const x = exchangeOf(req);
      const target = opts.pool.pick(x.tried);
      if (!target) throw new AppError('UPSTREAM_UNAVAILABLE');
      x.tried.add(target);
      x.attempt = { target, connected: false, timedOut: false };
      return target.url.origin;
    },
    agent: opts.agent,
    selfHandleResponse: true,
    ejectPlugins: true,
    plugins: [failover],
  });

  return (req, res, next, forwarded) => {
    hold(req).then((body) => {
      if (res.destroyed) return;
      const { headers } = upstreamHeaders(req, forwarded, body.length);
      const x: Exchange = { body, headers, next, tried: new Set(), resets: 0, settled: false };
      exchanges.set(req, x);
      res.on('close', () => {
        if (!res.writableFinished) x.settled = true;
      });
      void middleware(req, res, next);
    }, next);
  };
}

/** Reads the whole body; more than `HELD_BYTES` is 413, the rest of it read and dropped before the connection closes. */
function hold(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= HELD_BYTES) return void chunks.push(chunk);
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
