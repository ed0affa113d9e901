import type { AdapterWrite } from './adapter-guard.ts';

export type ApiKeyScope = 'read' | 'write';

export interface ApiKeyCacheOptions {
  /** A verified key is accepted without asking the database for this long. 0 disables the cache. */
  ttlMs: number;
  /** Past the TTL, a key is still accepted for this long while the database cannot be asked (0: never). */
  maxStaleMs: number;
  /** Keys kept at most; the least recently used goes first. */
  size: number;
}

export interface VerifiedKey {
  keyId: string;
  orgId: string;
  scope: ApiKeyScope;
  /** Epoch ms, or null for a key that does not expire. */
  expiresAt: number | null;
  /** Epoch ms of the database read that verified it. */
  verifiedAt: number;
}

/** Writes to these fields alone are usage bookkeeping, not a change of what the key may do. */
const BOOKKEEPING = new Set(['lastRequest', 'updatedAt', 'requestCount']);
/** The cache checks expiry itself: deleting expired keys changes nothing it would answer. */
const SELF_CHECKED = new Set(['expiresAt']);

const valuesOf = (value: unknown, operator?: string) => new Set(operator === 'in' ? (value as unknown[]) : [value]);

/** Which cached keys a write may have changed: those matching every condition the cache can evaluate. */
function affected(write: AdapterWrite): ((hash: string, key: VerifiedKey) => boolean) | undefined {
  const changes = Object.keys(write.update ?? {});
  if (write.method.startsWith('update') && changes.length && changes.every((f) => BOOKKEEPING.has(f))) return;
  const where = write.where as (AdapterWrite['where'][number] & { connector?: string })[];
  if (where.some((w) => w.connector === 'OR')) return () => true;
  if (where.length > 0 && where.every((w) => SELF_CHECKED.has(w.field))) return;
  const tests = where.flatMap((w) => {
    const values = valuesOf(w.value, w.operator);
    if (w.field === 'id') return [(_h: string, k: VerifiedKey) => values.has(k.keyId)];
    if (w.field === 'referenceId') return [(_h: string, k: VerifiedKey) => values.has(k.orgId)];
    if (w.field === 'key') return [(h: string) => values.has(h)];
    return [];
  });
  return (hash, key) => tests.every((test) => test(hash, key));
}

/**
 * Verified API keys by the SHA-256 of the key (as better-auth stores it; never the key itself), for `ttlMs`, so
 * API traffic survives a blip of the accounts database. Every write better-auth's adapter makes to an API key
 * (revocation, disabling, an organization's or member's keys going) is seen through the adapter guard and evicts
 * the keys it may have changed at once; `generation` lets a verification that raced such a write not re-insert
 * what it read before it.
 */
export function createApiKeyCache(opts: ApiKeyCacheOptions, now: () => number) {
  const entries = new Map<string, VerifiedKey>();
  let generation = 0;
  return {
    /** The cached key, if still usable: `fresh` within the TTL, else only while the database cannot be asked. */
    lookup(hash: string): { key: VerifiedKey; fresh: boolean } | undefined {
      const key = entries.get(hash);
      if (!key) return undefined;
      const at = now();
      const age = at - key.verifiedAt;
      entries.delete(hash);
      if ((key.expiresAt !== null && key.expiresAt <= at) || age >= opts.ttlMs + opts.maxStaleMs) return undefined;
      entries.set(hash, key);
      return { key, fresh: age < opts.ttlMs };
    },
    generation: () => generation,
    /** Caches `key` unless a write to API keys happened since `since` (the generation before the read). */
    remember(hash: string, key: VerifiedKey, since: number) {
      if (since !== generation || opts.ttlMs <= 0 || opts.size <= 0) return;
      entries.delete(hash);
      entries.set(hash, key);
      for (const oldest of entries.keys()) {
        if (entries.size <= opts.size) break;
        entries.delete(oldest);
      }
    },
    /** The database no longer knows this key as valid. */
    drop: (hash: string) => void entries.delete(hash),
    observeWrite(write: AdapterWrite) {
      if (write.model !== 'apikey') return;
      const match = affected(write);
      if (!match) return;
      generation += 1;
      for (const [hash, key] of entries) if (match(hash, key)) entries.delete(hash);
    },
    size: () => entries.size,
  };
}

export type ApiKeyCache = ReturnType<typeof createApiKeyCache>;
