import { lookup } from 'node:dns/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatSettle, parseSettle, SETTLE_HEADER, type Settle } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Target } from './target.ts';

/** Longer than ingest's own wait (5 s), so an instance that is behind says so before this gives up on it. */
const INSTANCE_DEADLINE_MS = 6_000;

/** Waits until every ingest instance's views hold a change of settings (read your own settings). */
export type SettleAll = (settle: Settle) => Promise<void>;

/** Resolves a host name to every address it has (`dns.promises.lookup` with `all`). */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const lookupAll: LookupAll = (hostname) => lookup(hostname, { all: true });

/** Every instance behind `urls`: each URL once per address its host resolves to (none if it resolves to none). */
async function instancesOf(urls: string[], resolve: LookupAll): Promise<string[]> {
  const found = await Promise.all(
    urls.map(async (raw) => {
      const url = new URL(raw);
      const addresses = await resolve(url.hostname.replace(/^\[|\]$/g, '')).catch(() => []);
      return addresses.map(({ address, family }) => {
        const each = new URL(url);
        each.hostname = family === 6 ? `[${address}]` : address;
        return each.origin;
      });
    }),
  );
  return [...new Set(found.flat())];
}

/**
 * `SettleAll` over the services whose views must hold a change before it is answered: ingest (every instance: each
 * has views of its own in memory) and notifications (its forms view, read by its consumers and webhook routes). In
 * process, their views directly; over HTTP, `GET /internal/settled` on every instance at once — every address the
 * host names of `peers` (default: the target's URLs) resolve to, so a name that resolves to each instance
 * (compose's service name, a Kubernetes headless Service) reaches them all. An instance that cannot be reached is
 * skipped: it takes no traffic either, and one that starts replays its views before it listens. One that answers
 * without the version within its wait is logged (its view lags the log: an incident of its own); the change is in
 * the log and answered all the same.
 */
export function createSettleAll(
  targets: { ingest?: Target; notifications?: Target },
  logger: Logger,
  resolve = lookupAll,
): SettleAll {
  const behind = (settle: Settle, instance: string) =>
    logger.warn({ settle, instance }, 'a view did not apply a change of settings in time');
  const each = Object.entries(targets).flatMap(([name, target]) => (target ? [settlerOf(name, target)] : []));
  function settlerOf(name: string, target: Target) {
    if (target.kind === 'in-process') {
      const { settled } = target;
      return async (settle: Settle) => {
        if (settled && !(await settled(settle))) behind(settle, `${name} (in process)`);
      };
    }
    const peers = target.peers ?? target.urls;
    return async (settle: Settle) => {
      const of = encodeURIComponent(formatSettle(settle));
      const instances = await instancesOf(peers, resolve);
      await Promise.all(
        instances.map(async (origin) => {
          const answer = await fetch(`${origin}/internal/settled?of=${of}`, {
            signal: AbortSignal.timeout(INSTANCE_DEADLINE_MS),
          }).catch(() => null);
          if (answer && answer.status !== 204) behind(settle, `${name} ${origin}`);
        }),
      );
    };
  }
  return async (settle) => void (await Promise.all(each.map((settleOn) => settleOn(settle))));
}

/**
 * For an in-process service's answer: an answer that names a change to settle (`SETTLE_HEADER`) is held, without
 * the header, until `settleAll` resolved. Express sets headers and then ends the response in one call, so holding
 * `end` holds the whole answer.
 */
export function holdUntilSettled(res: ServerResponse, settleAll: SettleAll) {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const settle = takeSettle(res);
    if (!settle) return end(...args);
    void settleAll(settle).finally(() => end(...args));
    return res;
  }) as ServerResponse['end'];
}

/** The change an answer names (a 2xx only), its header removed either way. */
function takeSettle(res: ServerResponse): Settle | null {
  const value = res.getHeader(SETTLE_HEADER);
  if (value === undefined || res.headersSent) return null;
  res.removeHeader(SETTLE_HEADER);
  return typeof value === 'string' && res.statusCode < 300 ? parseSettle(value) : null;
}

/** For a proxied answer: the change it names (a 2xx only), its header removed either way. */
export function settleOf(answer: IncomingMessage): Settle | null {
  const value = answer.headers[SETTLE_HEADER];
  if (value === undefined) return null;
  delete answer.headers[SETTLE_HEADER];
  const status = answer.statusCode ?? 500;
  return typeof value === 'string' && status >= 200 && status < 300 ? parseSettle(value) : null;
}
