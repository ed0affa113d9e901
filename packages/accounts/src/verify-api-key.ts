import { defaultKeyHasher } from '@better-auth/api-key';
import type { Clock, Logger } from '@formgate/kit';
import { isUnreachable } from './adapter-guard.ts';
import type { ApiKeyCache, ApiKeyScope, VerifiedKey } from './api-key-cache.ts';

/** An `apikey` row as better-auth's adapter returns it (SQLite keeps JSON and dates as text). */
export interface ApiKeyRow {
  id: string;
  key?: string;
  name: string | null;
  start: string | null;
  referenceId: string;
  enabled?: boolean | number | null;
  permissions?: string | Record<string, string[]> | null;
  createdAt: Date;
  expiresAt?: Date | string | null;
  lastRequest?: Date | null;
  metadata?: unknown;
}

interface KeyAdapter {
  findOne<T>(query: { model: string; where: { field: string; value: unknown }[] }): Promise<T | null>;
  update<T>(query: {
    model: string;
    where: { field: string; value: unknown }[];
    update: Record<string, unknown>;
  }): Promise<T | null>;
}

export function scopeOf(row: Pick<ApiKeyRow, 'permissions'>): ApiKeyScope {
  const raw = row.permissions;
  const perms = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, string[]>) : raw;
  return perms?.formgate?.includes('write') ? 'write' : 'read';
}

function verified(row: ApiKeyRow | null, at: number): VerifiedKey | null {
  if (!row?.referenceId || row.enabled === false || row.enabled === 0) return null;
  const expiresAt = row.expiresAt ? new Date(row.expiresAt).getTime() : null;
  if (expiresAt !== null && expiresAt <= at) return null;
  return { keyId: row.id, orgId: row.referenceId, scope: scopeOf(row), expiresAt, verifiedAt: at };
}

export type ApiKeyVerifier = (key: string) => Promise<VerifiedKey | null>;

/**
 * Verifies an organization API key through better-auth's (guarded) adapter rather than `auth.api.verifyApiKey`,
 * which answers "invalid" for a database error too, and writes twice per call. A key is what better-auth would
 * accept: its SHA-256 stored, enabled, not expired (Formgate's keys carry no usage quota or rate limit). Valid keys
 * are cached (`createApiKeyCache`); an unreachable database is thrown (`AccountsUnavailableError`), except for a
 * cached key within its max-stale bound, which is accepted. `lastRequest` is written when the database is read,
 * so `lastUsedAt` is exact to the TTL.
 */
export function createApiKeyVerifier(deps: {
  adapter: () => Promise<KeyAdapter>;
  cache: ApiKeyCache;
  clock: Clock;
  logger: Logger;
}): ApiKeyVerifier {
  return async (key) => {
    const hash = await defaultKeyHasher(key);
    const cached = deps.cache.lookup(hash);
    if (cached?.fresh) return cached.key;
    const since = deps.cache.generation();
    const db = await deps.adapter();
    let row: ApiKeyRow | null;
    try {
      row = await db.findOne<ApiKeyRow>({ model: 'apikey', where: [{ field: 'key', value: hash }] });
    } catch (err) {
      if (cached && isUnreachable(err)) return cached.key;
      throw err;
    }
    const now = deps.clock.now();
    const result = verified(row, now.getTime());
    if (!result) {
      deps.cache.drop(hash);
      return null;
    }
    deps.cache.remember(hash, result, since);
    db.update({ model: 'apikey', where: [{ field: 'id', value: result.keyId }], update: { lastRequest: now } }).catch(
      (err: unknown) => deps.logger.debug({ err: { message: (err as Error).message } }, 'api key lastRequest'),
    );
    return result;
  };
}

/** The user who created an API key (kept in its metadata by the gateway). */
export function creatorOf(metadata: unknown): string | undefined {
  const parsed = typeof metadata === 'string' ? (JSON.parse(metadata) as unknown) : metadata;
  const createdBy = (parsed as { createdBy?: unknown } | null)?.createdBy;
  return typeof createdBy === 'string' ? createdBy : undefined;
}
