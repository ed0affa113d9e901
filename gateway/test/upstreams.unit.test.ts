import { createLogger } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { createUpstreamPool, type UpstreamPool } from '../src/upstreams.ts';

const logger = createLogger({ level: 'silent', name: 'test' });

describe('the upstream pool', () => {
  const pool = (now: () => number): UpstreamPool =>
    createUpstreamPool('svc', ['http://a.test', 'http://b.test'], { logger, minBackoffMs: 1_000, now });

  it('skips a down instance for a doubling backoff and lets one probe through when it ends', () => {
    let t = 0;
    const p = pool(() => t);
    const a = p.pick() as NonNullable<ReturnType<UpstreamPool['pick']>>;
    expect(a.url.host).toBe('a.test');
    p.markDown(a, 'ECONNREFUSED');
    expect([p.pick(), p.pick()].map((u) => u?.url.host)).toEqual(['b.test', 'b.test']);
    t = 1_000;
    expect(p.pick()?.url.host).toBe('a.test');
    expect([p.pick(), p.pick()].map((u) => u?.url.host)).toEqual(['b.test', 'b.test']);
    p.markDown(a, 'ECONNREFUSED');
    t = 2_999;
    expect(p.pick()?.url.host).toBe('b.test');
    t = 3_000;
    expect(p.pick()?.url.host).toBe('a.test');
    p.markUp(a);
    expect(p.health()).toEqual({ healthy: 2, total: 2 });
  });

  it('with every instance in its backoff, tries one that only refused connections (soonest due first), never one that timed out', () => {
    let t = 0;
    const p = pool(() => t);
    const [a, b] = [p.pick(), p.pick()] as NonNullable<ReturnType<UpstreamPool['pick']>>[];
    p.markDown(a as NonNullable<typeof a>, 'ECONNREFUSED');
    t = 10;
    p.markDown(b as NonNullable<typeof b>, 'ECONNREFUSED');
    // Both in their backoff: the one due first is tried, then (that one refused again, so excluded) the other.
    expect(p.pick()?.url.host).toBe('a.test');
    expect(p.pick(new Set([a as NonNullable<typeof a>]))?.url.host).toBe('b.test');
    expect(p.pick(new Set([a, b] as NonNullable<typeof a>[]))).toBeUndefined();
    // A timeout is never tried before its backoff ends.
    p.markDown(a as NonNullable<typeof a>, 'timeout');
    p.markDown(b as NonNullable<typeof b>, 'timeout');
    expect(p.pick()).toBeUndefined();
  });
});
