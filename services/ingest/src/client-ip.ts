import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { boundedMemo } from '@formgate/kit';

/** The header in which the gateway passes the client's address it resolved (`x-formgate-client-ip`). */
export const GATEWAY_CLIENT_IP_HEADER = 'x-formgate-client-ip';

/** How many peers' trust answers are remembered at most (see `createClientIpResolver`). */
const REMEMBERED_PEERS = 1_024;

const bare = (ip: string) => ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/**
 * The client's address for the spam layers. The gateway resolves it (its own `TRUSTED_PROXIES` rule for
 * `X-Forwarded-For`) and passes it in `x-formgate-client-ip`; ingest believes that header only when the TCP peer
 * is one of `trustedProxies` (IPs or CIDR ranges: the gateway's addresses). Reached any other way, the peer's own
 * address is the client's, and every client-sent `X-Forwarded-For` / `x-formgate-client-ip` is ignored.
 */
export function createClientIpResolver(trustedProxies: readonly string[]): (req: IncomingMessage) => string {
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address = '', prefix] = entry.trim().split('/');
    const family = isIP(bare(address));
    if (family === 0) throw new Error(`TRUSTED_PROXIES: ${entry} is not an IP address or CIDR range`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(bare(address), type);
    else trusted.addSubnet(bare(address), Number(prefix), type);
  }
  if (trustedProxies.length === 0) return (req) => bare(req.socket.remoteAddress ?? '');
  // `BlockList.check` builds a `SocketAddress` per call (~3 µs on the ingest hot path, P1); the peers are few (the
  // gateway's instances), so each one's answer is remembered.
  const isTrusted = boundedMemo(REMEMBERED_PEERS, (ip) => {
    const family = isIP(ip);
    return family !== 0 && trusted.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  });
  return (req) => {
    const peer = bare(req.socket.remoteAddress ?? '');
    if (!isTrusted(peer)) return peer;
    const forwarded = req.headers[GATEWAY_CLIENT_IP_HEADER];
    return typeof forwarded === 'string' && isIP(bare(forwarded.trim())) !== 0 ? bare(forwarded.trim()) : peer;
  };
}
