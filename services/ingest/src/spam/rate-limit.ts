import { createHmac } from 'node:crypto';
import type { SpamReason } from '@formgate/contracts';
import { AppError, boundedMemo } from '@formgate/kit';
import type { BeforeBodyLayer, LayerFinding, SpamRequest } from './layer.ts';

/** The scopes of a rate limit, as `ingest.abuse` reports name them. */
export type RateScope = 'ip' | 'form' | 'org';

const MINUTE_MS = 60_000;

/** One count as the limiter exchanges it: a key of a scope, in the UTC minute starting at `minute` (ms). */
export interface RateCount {
  scope: RateScope;
  key: string;
  minute: number;
  count: number;
}

interface Bucket {
  /** Requests this instance accepted. */
  local: number;
  /** Of `local`, how many were handed to the exchange already (`drain`). */
  sent: number;
  /** Requests the other instances reported accepting (see `addRemote`). */
  remote: number;
}

type Minute = Record<RateScope, Map<string, Bucket>>;

/**
 * Sliding-window counters per key: two fixed UTC minutes (the current one and the previous one), the previous one
 * weighted by the part of it still inside the last 60 s — the estimate Cloudflare and nginx use, exact for a steady
 * rate, within one minute's counts otherwise, and two numbers per key. A request passes when the estimate is below
 * the limit; only accepted requests count. Counts of other ingest instances are added as reported (`addRemote`).
 */
export class SlidingWindowCounter {
  /** minute start (ms) → scope → key → counts; only the current and previous minute are kept. */
  private readonly minutes = new Map<number, Minute>();

  private bucket(minute: number, scope: RateScope, key: string, create: true): Bucket;
  private bucket(minute: number, scope: RateScope, key: string, create: false): Bucket | undefined;
  private bucket(minute: number, scope: RateScope, key: string, create: boolean): Bucket | undefined {
    let m = this.minutes.get(minute);
    if (!m) {
      if (!create) return undefined;
      m = { ip: new Map(), form: new Map(), org: new Map() };
      this.minutes.set(minute, m);
      // A new minute: anything before the previous one can no longer weigh.
      for (const old of this.minutes.keys()) if (old < minute - MINUTE_MS) this.minutes.delete(old);
    }
    let b = m[scope].get(key);
    if (!b && create) {
      b = { local: 0, sent: 0, remote: 0 };
      m[scope].set(key, b);
    }
    return b;
  }

  private total(minute: number, scope: RateScope, key: string): number {
    const b = this.bucket(minute, scope, key, false);
    return b ? b.local + b.remote : 0;
  }

  /** The estimated number of requests of the last 60 s at `nowMs`. */
  estimate(scope: RateScope, key: string, nowMs: number): number {
    const minute = minuteOf(nowMs);
    const weight = 1 - (nowMs - minute) / MINUTE_MS;
    return this.total(minute - MINUTE_MS, scope, key) * weight + this.total(minute, scope, key);
  }

  /**
   * Milliseconds from `nowMs` until one more request under `limit` would pass if nothing else arrived (0 when it
   * passes now): within this minute while the previous one's weight falls, else in the next minute.
   */
  waitMs(scope: RateScope, key: string, limit: number, nowMs: number): number {
    const minute = minuteOf(nowMs);
    const prev = this.total(minute - MINUTE_MS, scope, key);
    const curr = this.total(minute, scope, key);
    const elapsed = nowMs - minute;
    if (prev * (1 - elapsed / MINUTE_MS) + curr < limit) return 0;
    // Passes at elapsed e when prev·(1 − e/60 s) + curr < limit, i.e. e > 60 s · (1 − (limit − curr) / prev).
    if (curr < limit && prev > 0) {
      const at = MINUTE_MS * (1 - (limit - curr) / prev);
      // Not passing now means elapsed ≤ at: it passes just after `at` (at least 1 ms from now).
      if (at < MINUTE_MS) return Math.max(1, at - elapsed);
    }
    // Next minute: this one's count becomes the weighted one and nothing is current.
    const at = curr < limit ? 0 : MINUTE_MS * (1 - limit / curr);
    return MINUTE_MS - elapsed + at;
  }

  /** Counts one request this instance accepted. */
  add(scope: RateScope, key: string, nowMs: number): void {
    this.bucket(minuteOf(nowMs), scope, key, true).local += 1;
  }

  /** Adds what another instance reported accepting; counts for minutes that no longer weigh are dropped. */
  addRemote(c: RateCount, nowMs: number): void {
    const current = minuteOf(nowMs);
    if (c.count <= 0 || c.minute < current - MINUTE_MS || c.minute > current + MINUTE_MS) return;
    this.bucket(c.minute, c.scope, c.key, true).remote += c.count;
  }

  /** This instance's counts since the last call (the exchange publishes them); each is handed out once. */
  drain(): RateCount[] {
    const out: RateCount[] = [];
    for (const [minute, m] of this.minutes) {
      for (const scope of ['ip', 'form', 'org'] as const) {
        for (const [key, b] of m[scope]) {
          if (b.local === b.sent) continue;
          out.push({ scope, key, minute, count: b.local - b.sent });
          b.sent = b.local;
        }
      }
    }
    return out;
  }

  /** Keys held (both minutes), for tests and health output. */
  get size(): number {
    let n = 0;
    for (const m of this.minutes.values()) n += m.ip.size + m.form.size + m.org.size;
    return n;
  }
}

export const minuteOf = (ms: number): number => ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);

/**
 * An IP as counters and reports name it: a keyed hash (HMAC-SHA-256, cut to 128 bits) of the form and the address, so
 * `ingest.abuse` never carries an address in clear and a reader without the key cannot try all IPv4 addresses.
 * Instances that share counts must share the key (derived from `INGEST_SECRET`). The last few thousand results are remembered
 * (an HMAC costs microseconds; a client's next request is a map lookup).
 */
export function ipKeyer(key: string | Buffer, remember = 4_096): (formId: string, ip: string) => string {
  const hashed = boundedMemo(remember, (id) => createHmac('sha256', key).update(id).digest('base64url').slice(0, 22));
  return (formId, ip) => hashed(`${formId}\0${ip}`);
}

const SCOPES: readonly { scope: RateScope; setting: 'perIpPerMinute' | 'perFormPerMinute' | 'perOrgPerMinute' }[] = [
  { scope: 'ip', setting: 'perIpPerMinute' },
  { scope: 'form', setting: 'perFormPerMinute' },
  { scope: 'org', setting: 'perOrgPerMinute' },
];

const RULES: Record<RateScope, { rule: string; what: string }> = {
  ip: { rule: 'per-ip', what: 'from this address' },
  form: { rule: 'per-form', what: 'to this form' },
  org: { rule: 'per-org', what: "to this organization's forms" },
};

export interface RateLimitLayer extends BeforeBodyLayer {
  readonly counter: SlidingWindowCounter;
}

/**
 * The rate-limit layer (issue 14): `settings.rateLimit.perIpPerMinute` (per form and client address),
 * `perFormPerMinute` and `perOrgPerMinute`, each 0 = off. Over any of them: a block with 429 `RATE_LIMITED` and
 * `Retry-After` = the whole seconds until the request would pass (the longest wait of the scopes over their limit);
 * nothing is counted for a blocked request, so a client that waits `Retry-After` gets through. Accepted requests count
 * in every limited scope. In shadow mode the orchestrator lets a block through: the request is not counted either
 * (this layer only counts what it passed), so shadow mode shows every request over the limit, not just the first.
 */
export function createRateLimitLayer(opts: {
  counter?: SlidingWindowCounter;
  /** The keyed hash of (form, client address); see `ipKeyer`. */
  ipKey: (formId: string, ip: string) => string;
}): RateLimitLayer {
  const counter = opts.counter ?? new SlidingWindowCounter();
  return {
    name: 'rate-limit',
    phase: 'before-body',
    counter,
    check(request: SpamRequest): LayerFinding {
      const limits = request.settings.rateLimit;
      if (limits.perIpPerMinute === 0 && limits.perFormPerMinute === 0 && limits.perOrgPerMinute === 0) {
        return { verdict: 'pass' };
      }
      const now = request.now.getTime();
      const keys: Record<RateScope, string> = {
        ip: limits.perIpPerMinute > 0 ? opts.ipKey(request.form.id, request.clientIp) : '',
        form: request.form.id,
        org: request.form.orgId,
      };
      const reasons: SpamReason[] = [];
      let wait = 0;
      for (const { scope, setting } of SCOPES) {
        const limit = limits[setting];
        if (limit === 0) continue;
        const ms = counter.waitMs(scope, keys[scope], limit, now);
        if (ms === 0) continue;
        wait = Math.max(wait, ms);
        reasons.push({
          layer: 'rate-limit',
          rule: RULES[scope].rule,
          detail: `more than ${limit} submissions per minute ${RULES[scope].what}`,
        });
      }
      if (reasons.length === 0) {
        for (const { scope, setting } of SCOPES) if (limits[setting] > 0) counter.add(scope, keys[scope], now);
        return { verdict: 'pass' };
      }
      // Whole seconds, and strictly past the instant the estimate drops below the limit.
      const retryAfterSeconds = Math.max(1, Math.ceil((wait + 1) / 1000));
      return {
        verdict: 'block',
        reasons,
        error: new AppError('RATE_LIMITED', `Too many submissions; retry in ${retryAfterSeconds} s`, {
          retryAfterSeconds,
          details: reasons.map(({ layer, rule }) => ({ layer, rule })),
        }),
      };
    },
  };
}
