import type { Logger } from '@formgate/kit';

/** One instance of a service, as the gateway last saw it. */
export interface Upstream {
  readonly url: URL;
  /** Failures in a row; 0 while healthy. */
  failures: number;
  /** Epoch ms before which the instance is skipped (0: healthy). */
  downUntil: number;
  /** Its last failure was a refused or unreachable connection (fast to find out again), not a timeout. */
  refused: boolean;
}

export interface PoolHealth {
  healthy: number;
  total: number;
}

/**
 * The instances of one service with passive health: nothing polls them; the proxy reports what happened to real
 * requests. `pick` round-robins over the instances that are up, skipping those in `exclude` (already tried for
 * this request); `undefined` means none is left, and the caller answers at once instead of waiting.
 * An instance marked down is skipped for a backoff that doubles with each failure in a row (1 s → 30 s); when it
 * ends, exactly one request is let through as a probe and the backoff is re-armed meanwhile: an answer of any
 * status marks it up, another failure doubles the backoff. A probe whose connection is refused costs its request
 * nothing, as the proxy then tries another instance.
 * When every instance left is in its backoff, one whose last failure was a refused connection is tried anyway
 * (the soonest due first): a restarted instance then serves at once instead of after its backoff, and one still
 * down refuses within a millisecond. An instance that timed out is never tried early (that would cost the
 * request the whole timeout).
 */
export interface UpstreamPool {
  readonly name: string;
  pick(exclude?: ReadonlySet<Upstream>): Upstream | undefined;
  /** The instance could not be reached (connection refused, unreachable) or did not answer in time. */
  markDown(upstream: Upstream, reason: string): void;
  /** The instance answered (any status). */
  markUp(upstream: Upstream): void;
  health(): PoolHealth;
}

export interface PoolOptions {
  logger: Logger;
  /** First backoff after a failure; doubled per failure in a row up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

export function createUpstreamPool(name: string, urls: readonly string[], opts: PoolOptions): UpstreamPool {
  if (urls.length === 0) throw new Error(`upstream pool ${name} has no instances`);
  const instances: Upstream[] = urls.map((u) => ({ url: new URL(u), failures: 0, downUntil: 0, refused: false }));
  const now = opts.now ?? Date.now;
  const min = opts.minBackoffMs ?? 1_000;
  const max = opts.maxBackoffMs ?? 30_000;
  const backoff = (failures: number) => Math.min(max, min * 2 ** Math.min(failures - 1, 30));
  let cursor = 0;
  return {
    name,
    pick(exclude) {
      const at = now();
      for (let i = 0; i < instances.length; i++) {
        const candidate = instances[cursor++ % instances.length] as Upstream;
        if (exclude?.has(candidate) || candidate.downUntil > at) continue;
        // A probe: the next one goes through only after another backoff, unless this one reports back first.
        if (candidate.failures > 0) candidate.downUntil = at + backoff(candidate.failures);
        return candidate;
      }
      const early = instances.filter((u) => u.refused && !exclude?.has(u)).sort((x, y) => x.downUntil - y.downUntil)[0];
      return early;
    },
    markDown(upstream, reason) {
      upstream.failures += 1;
      upstream.refused = reason !== 'timeout';
      const wait = backoff(upstream.failures);
      upstream.downUntil = now() + wait;
      if (upstream.failures === 1)
        opts.logger.warn({ upstream: upstream.url.origin, pool: name, reason, retryInMs: wait }, 'upstream down');
    },
    markUp(upstream) {
      if (upstream.failures === 0) return;
      opts.logger.info({ upstream: upstream.url.origin, pool: name, after: upstream.failures }, 'upstream back');
      upstream.failures = 0;
      upstream.downUntil = 0;
      upstream.refused = false;
    },
    health: () => ({ healthy: instances.filter((u) => u.failures === 0).length, total: instances.length }),
  };
}
