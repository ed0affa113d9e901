import type { Agent } from 'node:http';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * The SSRF guard: `request-filtering-agent`'s agents check the address a socket is about to connect to, after DNS
 * resolution (its `lookup` hook refuses the answer) and for literal IPs (its `createConnection` refuses the host), so
 * a name that resolves to a private address, or re-resolves to one (DNS rebinding), is refused at connect time.
 *
 * Refused: every address ipaddr.js does not classify as public `unicast` — loopback (127/8, ::1), private (10/8,
 * 172.16/12, 192.168/16), link-local (169.254/16 with the 169.254.169.254 metadata address, fe80::/10), CGNAT
 * (100.64/10), unique-local fc00::/7, multicast, broadcast, reserved and documentation ranges, and IPv6 forms that
 * embed an IPv4 address (`::ffff:a.b.c.d` mapped, NAT64, 6to4, Teredo) whatever that address is.
 * `0.0.0.0/8` and `::` are refused even with `allowPrivateTargets` (they mean "this host").
 */

const forbidding = {
  http: new RequestFilteringHttpAgent({ keepAlive: false }),
  https: new RequestFilteringHttpsAgent({ keepAlive: false }),
};
const allowing = {
  http: new RequestFilteringHttpAgent({ keepAlive: false, allowPrivateIPAddress: true }),
  https: new RequestFilteringHttpsAgent({ keepAlive: false, allowPrivateIPAddress: true }),
};

/** The agent for a request to `protocol` (`http:` or `https:`). No keep-alive: every attempt connects (and checks). */
export function guardedAgent(protocol: 'http:' | 'https:', allowPrivateTargets: boolean): Agent {
  const agents = allowPrivateTargets ? allowing : forbidding;
  return protocol === 'https:' ? agents.https : agents.http;
}

/**
 * Whether a request error is the guard's refusal. The library raises a plain `Error` ("DNS lookup <ip>(…) is not
 * allowed. …") without a code; the webhook tests pin this against the library's real behaviour.
 */
export function isTargetRefusal(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err as NodeJS.ErrnoException).code === undefined &&
    /^DNS lookup .* is not allowed\./.test(err.message)
  );
}
