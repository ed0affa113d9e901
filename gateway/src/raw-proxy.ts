import { type Agent, type ClientRequest, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { AppError, type Logger, lingerThenClose } from '@formgate/kit';
import { upstreamHeaders } from './forward-headers.ts';
import { relayAnswer, SAFE_METHODS, wasReusedAndReset, whenConnected, whenStalled } from './relay.ts';
import type { Upstream, UpstreamPool } from './upstreams.ts';

export interface ProxyOptions {
  pool: UpstreamPool;
  agent: Agent;
  logger: Logger;
  /** Deadline for the upstream's response headers, counted from when the whole request was handed to it. */
  timeoutMs: number;
  /** A connection not established within this is treated like a refused one (default 2 s). */
  connectTimeoutMs?: number;
}

export type Proxy = (req: IncomingMessage, res: ServerResponse, forwarded: Record<string, string>) => void;

/** One client request on its way through the pool: the instances tried so far and whether it is answered. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  headers: ReturnType<typeof upstreamHeaders>['headers'];
  hasBody: boolean;
  tried: Set<Upstream>;
  current?: ClientRequest;
  /** An answer (the upstream's or an error) has been started; nothing is retried any more. */
  settled: boolean;
  /** Pooled connections found reset so far (each one may be retried, on any instance, twice at most). */
  resets: number;
  /**
   * The body as sent so far, kept while it stays under `REPLAYABLE_BYTES` and the request carries an
   * `Idempotency-Key` (a resend then yields the same submission id), so a reset pooled connection can be retried.
   */
  replay?: Buffer[] | null;
}

/** One try on one instance. */
interface Attempt {
  target: Upstream;
  upstream: ClientRequest;
  /** The socket reached the instance: from here on a request with a body is never sent again. */
  connected: boolean;
  timedOut: boolean;
  timer?: NodeJS.Timeout;
}

/** Bodies kept for a retry, when they carry an `Idempotency-Key`: ingest's limit for urlencoded and JSON bodies. */
const REPLAYABLE_BYTES = 256 * 1024;

/** Ingest's error shape: `{ error: { code, message } }`. */
function answerJson(res: ServerResponse, error: AppError) {
  const retryAfter = error.retryable ? { 'retry-after': String(error.retryAfterSeconds ?? 1) } : {};
  res
    .writeHead(error.status, { 'content-type': 'application/json', ...retryAfter })
    .end(JSON.stringify({ error: { code: error.code, message: error.message } }));
}

/**
 * The `/f/*` proxy (ADR 12, 16, 100), streaming, over a pool of instances: `node:http` on the gateway's keep-alive
 * agent, hop-by-hop headers dropped both ways, the body framed by the proxy itself (`upstreamHeaders`).
 * The client's body is piped only once the socket to the instance is connected, so a refused or unreachable
 * instance has received nothing and the request — POST included — is tried on the next instance; a request is
 * never sent again once its socket connected, except on a pooled connection that the instance reset before any
 * answer, when that is harmless: a body-less GET/HEAD/OPTIONS (RFC 9110 §9.2.2), or a whole copy of a body with an
 * `Idempotency-Key` (kept while under 256 KiB). An instance that stops taking the body midway, or gives no response
 * headers within `timeoutMs` of the request being sent: 504 `UPSTREAM_TIMEOUT`. No instance left: 503 `UPSTREAM_UNAVAILABLE`
 * at once. A timed-out instance is marked down. An answer given before the whole body was sent (413, 404) reaches the client as it is
 * and the rest of the body is discarded; an answer once started is never retried.
 */
export function createRawProxy(opts: ProxyOptions): Proxy {
  return (req, res, forwarded) => {
    const { headers, hasBody } = upstreamHeaders(req, forwarded);
    const x: Exchange = { req, res, headers, hasBody, tried: new Set(), settled: false, resets: 0 };
    // The client went away before the answer: stop the upstream exchange too.
    res.on('close', () => {
      if (res.writableFinished) return;
      x.settled = true;
      x.current?.destroy();
    });
    attempt(opts, x);
  };
}

function attempt(opts: ProxyOptions, x: Exchange) {
  const target = opts.pool.pick(x.tried);
  if (!target) return fail(x, new AppError('UPSTREAM_UNAVAILABLE'));
  x.tried.add(target);
  let upstream: ClientRequest;
  try {
    upstream = request({
      protocol: target.url.protocol,
      hostname: target.url.hostname,
      port: target.url.port,
      method: x.req.method,
      path: x.req.url,
      headers: { ...x.headers, host: target.url.host },
      agent: opts.agent,
    });
  } catch {
    // A header value node:http will not send (its parser let it in): refuse rather than crash the gateway.
    return fail(x, new AppError('MALFORMED_REQUEST'));
  }
  x.current = upstream;
  const a: Attempt = { target, upstream, connected: false, timedOut: false };
  const expire = () => {
    a.timedOut = true;
    upstream.destroy(new Error('upstream timed out'));
  };
  upstream.on('socket', (socket) =>
    whenConnected(
      socket,
      opts.connectTimeoutMs ?? 2_000,
      (err) => upstream.destroy(err),
      () => {
        a.connected = true;
        if (!send(x, a)) return;
        // An instance that stops taking the body midway has timed out too.
        whenStalled(x.req, opts.timeoutMs, () => {
          if (!x.settled && x.current === upstream) expire();
        });
      },
    ),
  );
  upstream.on('finish', () => {
    if (!x.settled) a.timer = setTimeout(expire, opts.timeoutMs);
  });
  upstream.on('response', (answer) => {
    clearTimeout(a.timer);
    opts.pool.markUp(target);
    relay(x, upstream, answer);
  });
  upstream.on('error', (err) => {
    clearTimeout(a.timer);
    onError(opts, x, a, err);
  });
  upstream.on('close', () => clearTimeout(a.timer));
}

/** Sends the body (or none); true when the client's request is piped to the instance. */
function send(x: Exchange, a: Attempt): boolean {
  if (x.settled) return false;
  if (!x.hasBody || replayable(x)) {
    a.upstream.end(x.hasBody ? Buffer.concat(x.replay as Buffer[]) : undefined);
    return false;
  }
  if (x.replay === undefined) x.replay = x.req.headers['idempotency-key'] ? keepWhileSmall(x) : null;
  x.req.pipe(a.upstream);
  return true;
}

/** A whole copy of the body is kept (every byte of it was read, not only parsed): it may be sent again. */
const replayable = (x: Exchange) => !!x.replay && x.req.readableEnded;

function keepWhileSmall(x: Exchange): Buffer[] {
  const kept: Buffer[] = [];
  let bytes = 0;
  x.req.on('data', (chunk: Buffer) => {
    if (!x.replay) return;
    bytes += chunk.length;
    if (bytes > REPLAYABLE_BYTES) x.replay = null;
    else kept.push(chunk);
  });
  return kept;
}

function onError(opts: ProxyOptions, x: Exchange, a: Attempt, err: Error) {
  if (x.settled) return;
  const code = (err as NodeJS.ErrnoException).code ?? err.message;
  if (!a.connected) {
    opts.pool.markDown(a.target, code);
    return attempt(opts, x);
  }
  const idempotent = (SAFE_METHODS.has(x.req.method ?? '') && !x.hasBody) || replayable(x);
  if (wasReusedAndReset(a.upstream, code) && idempotent && !a.timedOut && x.resets++ < 2) {
    // Most likely a keep-alive connection the instance closed as it was reused: the same instance may answer.
    x.tried.delete(a.target);
    x.req.unpipe(a.upstream);
    return attempt(opts, x);
  }
  opts.logger.warn({ upstream: a.target.url.origin, pool: opts.pool.name, reason: code }, 'upstream failed');
  if (!a.timedOut) return fail(x, new AppError('UPSTREAM_UNAVAILABLE'));
  opts.pool.markDown(a.target, 'timeout');
  fail(x, new AppError('UPSTREAM_TIMEOUT'));
}

/** The rest of a body still arriving is read and dropped before closing, so the client reads the answer, not a reset. */
function fail(x: Exchange, error: AppError) {
  if (x.settled || x.res.destroyed) return;
  x.settled = true;
  answerJson(x.res, error);
  x.req.unpipe();
  if (!x.req.readableEnded) lingerThenClose(x.req);
}

function relay(x: Exchange, upstream: ClientRequest, answer: IncomingMessage) {
  x.settled = true;
  if (!x.req.complete) {
    // Answered before the whole body (e.g. 413): stop sending it upstream, drop the rest, linger before closing.
    x.req.unpipe(upstream);
    lingerThenClose(x.req);
  }
  relayAnswer(x.res, answer, () => upstream.destroy());
}
