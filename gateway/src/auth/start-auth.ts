import type { EventBus } from '@formgate/bus';
import type { Clock, Ids } from '@formgate/kit';
import { openSqlite } from '@formgate/store';
import { mongodbAdapter } from 'better-auth/adapters/mongodb';
import { getMigrations } from 'better-auth/db/migration';
import type { Db } from 'mongodb';
import { createAuthenticator } from './authenticate.ts';
import { type AuthSettings, authOptions, createAuth } from './create-auth.ts';
import { createOrgEventOutbox, type OutboxAdapter } from './org-events.ts';

export type AuthStore = { kind: 'sqlite'; path: string } | { kind: 'mongo'; db: Db };

export interface StartAuthDeps extends Omit<AuthSettings, 'database' | 'recordOrgEvent' | 'revokeApiKeys'> {
  store: AuthStore;
  bus: EventBus;
  clock: Clock;
  ids: Ids;
}

/** The user who created an API key (kept in its metadata by the gateway). */
export function creatorOf(metadata: unknown): string | undefined {
  const parsed = typeof metadata === 'string' ? (JSON.parse(metadata) as unknown) : metadata;
  const createdBy = (parsed as { createdBy?: unknown } | null)?.createdBy;
  return typeof createdBy === 'string' ? createdBy : undefined;
}

/**
 * The indexes better-auth's queries need on MongoDB (its adapter creates none, and runs without transactions
 * here: FerretDB has none to offer). Idempotent; run at every boot.
 */
async function ensureMongoIndexes(db: Db) {
  const specs: [string, Record<string, 1>, { unique?: boolean }?][] = [
    ['user', { email: 1 }, { unique: true }],
    ['session', { token: 1 }, { unique: true }],
    ['session', { userId: 1 }],
    ['account', { userId: 1 }],
    ['verification', { identifier: 1 }],
    ['member', { organizationId: 1, userId: 1 }],
    ['member', { userId: 1 }],
    ['organization', { slug: 1 }, { unique: true }],
    ['invitation', { organizationId: 1 }],
    ['invitation', { email: 1 }],
    ['team', { organizationId: 1 }],
    ['teamMember', { teamId: 1 }],
    ['teamMember', { userId: 1 }],
    ['apikey', { key: 1 }],
    ['apikey', { referenceId: 1 }],
    ['rateLimit', { key: 1 }, { unique: true }],
    ['orgEventOutbox', { eventId: 1 }],
  ];
  for (const [collection, keys, options] of specs) await db.collection(collection).createIndex(keys, options ?? {});
}

/**
 * Accounts for one gateway: better-auth on its database (migrated, or indexed, at boot), the authenticator that
 * turns a request into a caller, and the relay of organization events to the log.
 */
export async function startAuth(deps: StartAuthDeps) {
  const outbox = createOrgEventOutbox({ clock: deps.clock, ids: deps.ids, logger: deps.logger });
  const sqlite = deps.store.kind === 'sqlite' ? openSqlite(deps.store.path) : undefined;
  const database = deps.store.kind === 'sqlite' ? sqlite : mongodbAdapter(deps.store.db, { transaction: false });
  let adapter: OutboxAdapter | undefined;
  const settings: AuthSettings = {
    ...deps,
    database,
    recordOrgEvent: outbox.record,
    revokeApiKeys: async (orgId, createdBy) => {
      if (!adapter) return;
      const keys = await adapter.findMany<{ id: string; metadata?: unknown }>({
        model: 'apikey',
        where: [{ field: 'referenceId', value: orgId }],
      });
      const doomed = keys
        .filter((k) => createdBy === undefined || creatorOf(k.metadata) === createdBy)
        .map((k) => k.id);
      if (doomed.length)
        await adapter.deleteMany({ model: 'apikey', where: [{ field: 'id', operator: 'in', value: doomed }] });
    },
  };
  if (deps.store.kind === 'sqlite') await (await getMigrations(authOptions(settings))).runMigrations();
  else await ensureMongoIndexes(deps.store.db);

  const auth = createAuth(settings);
  adapter = (await auth.$context).adapter as unknown as OutboxAdapter;
  outbox.start(adapter, deps.bus);
  return {
    auth,
    authenticate: createAuthenticator(auth),
    async stop() {
      await outbox.stop();
      sqlite?.close();
    },
  };
}
