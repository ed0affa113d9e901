import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatSettle, parseSettle, SETTLE_HEADER, type Settle } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Target } from './forwarders.ts';

/** Longer than ingest's own wait (5 s), so an instance that is behind says so before this gives up on it. */
const INSTANCE_DEADLINE_MS = 6_000;

/** Waits until every ingest instance's views hold a change of settings (read your own settings). */
export type SettleAll = (settle: Settle) => Promise<void>;

/**
 * `SettleAll` over the ingest target: in process, its views directly; over HTTP, `GET /internal/settled` on every
 * instance at once. An instance that cannot be reached is skipped: it takes no submissions either, and one that
 * starts replays its views before it listens. One that answers without the version within its wait is logged (its
 * view lags the log: an incident of its own); the change is in the log and answered all the same.
 */
export function createSettleAll(ingest: Target | undefined, logger: Logger): SettleAll {
  const behind = (settle: Settle, instance: string) =>
    logger.warn({ settle, instance }, 'an ingest instance did not apply a change of settings in time');
  if (!ingest) return async () => {};
  if (ingest.kind === 'in-process') {
    const { settled } = ingest;
    return async (settle) => {
      if (settled && !(await settled(settle))) behind(settle, 'in-process');
    };
  }
  return async (settle) => {
    const of = formatSettle(settle);
    await Promise.all(
      ingest.urls.map(async (url) => {
        const answer = await fetch(`${url.replace(/\/$/, '')}/internal/settled?of=${encodeURIComponent(of)}`, {
          signal: AbortSignal.timeout(INSTANCE_DEADLINE_MS),
        }).catch(() => null);
        if (answer && answer.status !== 204) behind(settle, url);
      }),
    );
  };
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
