import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The client's IP as the gateway sees it: the socket's peer, or — only when that peer is one of `trustedProxies`
 * — the right-most untrusted address of `X-Forwarded-For`. A client cannot pick its own address.
 */
export function clientIp(req: IncomingMessage, trustedProxies: ReadonlySet<string>): string {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (!trustedProxies.has(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (typeof header === 'string' ? header : '')
    .split(',')
    .map((h) => h.trim().replace(/^::ffff:/, ''))
    .filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (!trustedProxies.has(hop)) return hop;
  }
  return peer;
}
