import type { IncomingMessage } from 'node:http';
import { DEFAULT_SPAM_SETTINGS, type Form, type SpamSettings } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import type { LayerFinding } from '../src/spam/layer.ts';
import { createRateLimitLayer, ipKeyer, minuteOf, SlidingWindowCounter } from '../src/spam/rate-limit.ts';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0); // a minute start

const form = (id = 'f1', orgId = 'o1') => ({ id, orgId }) as Form;
const settings = (rateLimit: Partial<SpamSettings['rateLimit']>): SpamSettings => ({
  ...DEFAULT_SPAM_SETTINGS,
  rateLimit: { ...DEFAULT_SPAM_SETTINGS.rateLimit, ...rateLimit },
});

function setup() {
  const layer = createRateLimitLayer({ ipKey: ipKeyer('test key') });
  const check = (at: number, s: SpamSettings, opts: { ip?: string; form?: Form } = {}) =>
    layer.check({
      form: opts.form ?? form(),
      settings: s,
      req: {} as IncomingMessage,
      clientIp: opts.ip ?? '203.0.113.7',
      now: new Date(at),
    }) as LayerFinding;
  const passes = (at: number, s: SpamSettings, opts?: { ip?: string; form?: Form }) =>
    check(at, s, opts).verdict === 'pass';
  return { layer, check, passes };
}

const blocked = (f: LayerFinding) => {
  if (f.verdict !== 'block') throw new Error(`expected a block, got ${f.verdict}`);
  return f;
};

describe('rate-limit layer', () => {
  it('everything 0 = off: any number passes and nothing is counted', () => {
    const { passes, layer } = setup();
    for (let i = 0; i < 1000; i++) expect(passes(T0 + i, settings({}))).toBe(true);
    expect(layer.counter.size).toBe(0);
  });

  it('per form: exactly the limit passes within a fresh minute, then 429 RATE_LIMITED with the rule', () => {
    const { passes, check } = setup();
    const s = settings({ perFormPerMinute: 5 });
    for (let i = 0; i < 5; i++) expect(passes(T0 + i * 1000, s, { ip: `198.51.100.${i}` })).toBe(true);
    const f = blocked(check(T0 + 5000, s, { ip: '198.51.100.99' }));
    expect(f.error.code).toBe('RATE_LIMITED');
    expect(f.error.status).toBe(429);
    expect(f.reasons).toEqual([
      { layer: 'rate-limit', rule: 'per-form', detail: 'more than 5 submissions per minute to this form' },
    ]);
    // Another form has its own count.
    expect(passes(T0 + 5000, s, { form: form('f2') })).toBe(true);
  });

  it('per IP: counted per address (and form); another address still passes', () => {
    const { passes, check } = setup();
    const s = settings({ perIpPerMinute: 2 });
    expect(passes(T0, s, { ip: '203.0.113.1' })).toBe(true);
    expect(passes(T0 + 1, s, { ip: '203.0.113.1' })).toBe(true);
    expect(blocked(check(T0 + 2, s, { ip: '203.0.113.1' })).reasons[0]?.rule).toBe('per-ip');
    expect(passes(T0 + 3, s, { ip: '203.0.113.2' })).toBe(true);
    expect(passes(T0 + 4, s, { ip: '203.0.113.1', form: form('f2') })).toBe(true);
  });

  it('per organization: all of its forms together', () => {
    const { passes, check } = setup();
    const s = settings({ perOrgPerMinute: 3 });
    expect(passes(T0, s, { form: form('a') })).toBe(true);
    expect(passes(T0, s, { form: form('b') })).toBe(true);
    expect(passes(T0, s, { form: form('c') })).toBe(true);
    expect(blocked(check(T0, s, { form: form('d') })).reasons[0]?.rule).toBe('per-org');
    expect(passes(T0, s, { form: form('e', 'o2') })).toBe(true);
  });

  it('a blocked request is not counted in any scope', () => {
    const { passes, check } = setup();
    const s = settings({ perIpPerMinute: 1, perFormPerMinute: 3 });
    expect(passes(T0, s, { ip: '203.0.113.1' })).toBe(true);
    for (let i = 0; i < 10; i++) blocked(check(T0 + i, s, { ip: '203.0.113.1' }));
    // The form's count is still 1: two other addresses pass.
    expect(passes(T0 + 20, s, { ip: '203.0.113.2' })).toBe(true);
    expect(passes(T0 + 21, s, { ip: '203.0.113.3' })).toBe(true);
    expect(blocked(check(T0 + 22, s, { ip: '203.0.113.4' })).reasons[0]?.rule).toBe('per-form');
  });

  it('sliding window: the previous minute weighs by the part of it still inside the last 60 s', () => {
    const { passes } = setup();
    const s = settings({ perFormPerMinute: 10 });
    for (let i = 0; i < 10; i++) expect(passes(T0 + 50_000, s, { ip: `198.51.100.${i}` })).toBe(true);
    // 15 s into the next minute: 10 · 45/60 = 7.5 → three more pass (at 7.5, 8.5, 9.5), the fourth (10.5) does not.
    const t = T0 + 75_000;
    for (let i = 0; i < 3; i++) expect(passes(t, s)).toBe(true);
    expect(passes(t, s)).toBe(false);
    // Two full minutes later nothing weighs any more.
    for (let i = 0; i < 10; i++) expect(passes(T0 + 180_000, s, { ip: `198.51.100.${i}` })).toBe(true);
  });

  it('Retry-After is the whole seconds until a request passes: blocked one second before, passes at it', () => {
    const s = settings({ perFormPerMinute: 10 });
    for (const [fill, probe] of [
      [T0 + 50_000, T0 + 75_000], // within the next minute, as the previous one's weight falls
      [T0 + 1_000, T0 + 2_000], // not before the next minute starts
      [T0, T0 + 59_999],
    ] as const) {
      const { passes, check } = setup();
      for (let i = 0; i < 10; i++) passes(fill, s);
      if (probe > fill) while (passes(probe, s)); // fill up what the window allows at `probe`
      const f = blocked(check(probe, s));
      const after = f.error.retryAfterSeconds ?? 0;
      expect(after).toBeGreaterThanOrEqual(1);
      expect(f.error.retryable).toBe(true);
      expect(f.error.message).toContain(`${after} s`);
      expect(passes(probe + (after - 1) * 1000, s)).toBe(false);
      expect(passes(probe + after * 1000, s)).toBe(true);
    }
  });

  it('Retry-After for a request with a full current minute and a full previous one', () => {
    const counter = new SlidingWindowCounter();
    for (let i = 0; i < 10; i++) counter.add('form', 'f', T0 + 30_000);
    for (let i = 0; i < 10; i++) counter.add('form', 'f', T0 + 60_000);
    // At T0+60 s: 10·1 + 10 = 20. The current minute is full: wait for the next one, where 10·(1 − e/60) < 10
    // holds for any e > 0: a minute, a hair more.
    expect(counter.waitMs('form', 'f', 10, T0 + 60_000)).toBe(60_000);
    expect(counter.estimate('form', 'f', T0 + 120_001)).toBeLessThan(10);
  });

  it('the longest wait of the scopes over their limit is answered, with every rule over it', () => {
    const { passes, check } = setup();
    const s = settings({ perIpPerMinute: 1, perFormPerMinute: 1 });
    expect(passes(T0 + 30_000, s)).toBe(true);
    const f = blocked(check(T0 + 30_000, s));
    expect(f.reasons.map((r) => r.rule)).toEqual(['per-ip', 'per-form']);
    expect(f.error.retryAfterSeconds).toBe(31);
  });

  it('remote counts (other instances) weigh like local ones and are not reported again', () => {
    const counter = new SlidingWindowCounter();
    const layer = createRateLimitLayer({ counter, ipKey: ipKeyer('k') });
    counter.addRemote({ scope: 'form', key: 'f1', minute: minuteOf(T0), count: 4 }, T0);
    const s = settings({ perFormPerMinute: 5 });
    const check = () =>
      layer.check({ form: form(), settings: s, req: {} as IncomingMessage, clientIp: '::1', now: new Date(T0 + 1) });
    expect((check() as LayerFinding).verdict).toBe('pass');
    expect((check() as LayerFinding).verdict).toBe('block');
    expect(counter.drain()).toEqual([{ scope: 'form', key: 'f1', minute: T0, count: 1 }]);
    expect(counter.drain()).toEqual([]);
    // Reports about minutes that no longer weigh are dropped.
    counter.addRemote({ scope: 'form', key: 'f9', minute: T0 - 120_000, count: 50 }, T0);
    expect(counter.estimate('form', 'f9', T0)).toBe(0);
  });

  it('keeps two minutes of keys at most', () => {
    const counter = new SlidingWindowCounter();
    for (let m = 0; m < 5; m++) for (let i = 0; i < 100; i++) counter.add('ip', `k${m}-${i}`, T0 + m * 60_000);
    expect(counter.size).toBe(200);
  });

  it('IP keys are keyed hashes: no address in clear, different per key and per form', () => {
    const a = ipKeyer('key one');
    const key = a('f1', '203.0.113.7');
    expect(key).not.toContain('203');
    expect(key).toMatch(/^[\w-]{22}$/);
    expect(a('f1', '203.0.113.7')).toBe(key);
    expect(ipKeyer('key two')('f1', '203.0.113.7')).not.toBe(key);
    expect(a('f2', '203.0.113.7')).not.toBe(key);
  });
});
