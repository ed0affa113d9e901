import { describe, expect, it } from 'vitest';
import { createApiKeyCache, type VerifiedKey } from '../src/api-key-cache.ts';

const key = (keyId: string, orgId: string, verifiedAt = 0, expiresAt: number | null = null): VerifiedKey => ({
  keyId,
  orgId,
  scope: 'read',
  expiresAt,
  verifiedAt,
});

function cacheAt(options = { ttlMs: 1_000, maxStaleMs: 5_000, size: 3 }) {
  const clock = { t: 0 };
  const cache = createApiKeyCache(options, () => clock.t);
  const fill = (...keys: [string, VerifiedKey][]) => {
    for (const [hash, k] of keys) cache.remember(hash, k, cache.generation());
  };
  const cached = (...hashes: string[]) => hashes.filter((h) => cache.lookup(h));
  return { clock, cache, fill, cached };
}

describe('the API key cache', () => {
  it('answers fresh within the TTL, stale until max-stale, then nothing; an expired key never', () => {
    const { clock, cache, fill } = cacheAt();
    fill(['h1', key('k1', 'o1')], ['h2', key('k2', 'o1', 0, 500)]);
    expect(cache.lookup('h1')?.fresh).toBe(true);
    clock.t = 500;
    expect(cache.lookup('h2')).toBeUndefined();
    clock.t = 1_000;
    expect(cache.lookup('h1')?.fresh).toBe(false);
    clock.t = 5_999;
    expect(cache.lookup('h1')).toBeDefined();
    clock.t = 6_000;
    expect(cache.lookup('h1')).toBeUndefined();
  });

  it('keeps the most recently used keys within its size', () => {
    const { cache, fill, cached } = cacheAt();
    fill(['a', key('a', 'o')], ['b', key('b', 'o')], ['c', key('c', 'o')]);
    cache.lookup('a');
    fill(['d', key('d', 'o')]);
    expect(cached('a', 'b', 'c', 'd')).toEqual(['a', 'c', 'd']);
  });

  it('forgets what a write may have changed: by id, by organization, by hash; bookkeeping and expiry sweeps keep it', () => {
    const { cache, fill, cached } = cacheAt({ ttlMs: 1_000, maxStaleMs: 0, size: 10 });
    const all = () => fill(['h1', key('k1', 'o1')], ['h2', key('k2', 'o1')], ['h3', key('k3', 'o2')]);
    all();
    cache.observeWrite({ model: 'apikey', method: 'update', where: [{ field: 'id', value: 'k1' }], update: {} });
    expect(cached('h1', 'h2', 'h3')).toEqual(['h2', 'h3']);
    all();
    cache.observeWrite({
      model: 'apikey',
      method: 'delete',
      where: [
        { field: 'id', value: 'k2' },
        { field: 'referenceId', value: 'o1' },
      ],
    });
    expect(cached('h1', 'h2', 'h3')).toEqual(['h1', 'h3']);
    all();
    cache.observeWrite({ model: 'apikey', method: 'deleteMany', where: [{ field: 'referenceId', value: 'o1' }] });
    expect(cached('h1', 'h2', 'h3')).toEqual(['h3']);
    all();
    cache.observeWrite({
      model: 'apikey',
      method: 'deleteMany',
      where: [{ field: 'id', operator: 'in', value: ['k1', 'k3'] }],
    });
    expect(cached('h1', 'h2', 'h3')).toEqual(['h2']);
    all();
    cache.observeWrite({
      model: 'apikey',
      method: 'update',
      where: [{ field: 'id', value: 'k1' }],
      update: { lastRequest: 1 },
    });
    cache.observeWrite({
      model: 'apikey',
      method: 'deleteMany',
      where: [{ field: 'expiresAt', operator: 'lt', value: 1 }],
    });
    cache.observeWrite({ model: 'session', method: 'deleteMany', where: [] });
    expect(cached('h1', 'h2', 'h3')).toEqual(['h1', 'h2', 'h3']);
    cache.observeWrite({
      model: 'apikey',
      method: 'updateMany',
      where: [{ field: 'name', value: 'x' }],
      update: { enabled: false },
    });
    expect(cached('h1', 'h2', 'h3')).toEqual([]);
  });

  it('does not re-insert a key read before a write that changed keys', () => {
    const { cache, cached } = cacheAt();
    const before = cache.generation();
    cache.observeWrite({ model: 'apikey', method: 'delete', where: [{ field: 'id', value: 'k1' }] });
    cache.remember('h1', key('k1', 'o1'), before);
    expect(cached('h1')).toEqual([]);
  });
});
