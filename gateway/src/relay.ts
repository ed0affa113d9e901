import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { endOnDrain } from '@formgate/kit';
import { endToEnd } from './forward-headers.ts';

/** Methods safe to send again (RFC 9110 §9.2.2), when the request has no body. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether `request` failed on a pooled keep-alive connection that the instance closed as it was reused: the same
 * instance may answer a resend. No other error is worth one.
 */
export const wasReusedAndReset = (request: ClientRequest, code: string) =>
  request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');

/**
 * Calls `then` once `socket` is connected to the instance, at once if it already is (a pooled connection). One not
 * connected within `timeoutMs` is failed with `ETIMEDOUT` through `fail`, as a refused one would be: nothing was
 * sent on it.
 */
export function whenConnected(socket: Socket, timeoutMs: number, fail: (err: Error) => void, then: () => void) {
  if (!socket.connecting) return then();
  const timer = setTimeout(() => fail(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
  socket.once('connect', () => {
    clearTimeout(timer);
    then();
  });
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Calls `onStall` when the instance stops taking a body: `source`, piped to it, stays paused by its pipe (the
 * instance's side is full) for `timeoutMs`. A client that is only slow to send never pauses it, and nothing is armed
 * for a body that never meets back-pressure.
 */
export function whenStalled(source: Readable, timeoutMs: number, onStall: () => void) {
  let timer: NodeJS.Timeout | undefined;
  source.on('pause', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (source.readableFlowing === false && !source.readableEnded) onStall();
    }, timeoutMs);
  });
  source.once('close', () => clearTimeout(timer));
  source.once('end', () => clearTimeout(timer));
}

/**
 * Passes an instance's answer on to the client: end-to-end headers only, the body streamed. An answer cut short
 * (the instance stopped or failed mid-body) cuts the client's too: ending it would pass the truncated body off as
 * whole, and an event stream's client would not know to reconnect. An event stream lasts as long as its client: a
 * draining gateway ends it (`stop` closes the upstream side) and the client reconnects elsewhere.
 */
export function relayAnswer(res: ServerResponse, answer: IncomingMessage, stop: () => void) {
  res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
  answer.pipe(res);
  const cut = () => {
    if (!answer.complete && !res.writableEnded) res.destroy();
  };
  answer.on('error', cut);
  answer.on('close', cut);
  if (!String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) return;
  endOnDrain(res, () => {
    answer.unpipe(res);
    // The instance's side is closed once the client has what was sent: closing it first would cut the client's.
    res.end(stop);
  });
}
