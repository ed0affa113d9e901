import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemIds } from '@formgate/kit';
import { openSqlite, sqliteSchemaVersion } from '@formgate/store/sqlite';
import { getMigrations } from 'better-auth/db/migration';
import { expect, it } from 'vitest';
import { OUTBOX_MODEL } from '../src/org-events/schema.ts';
import { createSqliteAccountsStore } from '../src/sqlite-accounts-store.ts';
import { adapterOf, authOptionsFor, runOrgEventOutboxContract } from './org-event-outbox.contract.ts';

async function open() {
  const dir = mkdtempSync(join(tmpdir(), 'fg-outbox-'));
  const sqlite = openSqlite(join(dir, 'auth.db'));
  const options = authOptionsFor(sqlite);
  await (await getMigrations(options)).runMigrations();
  return {
    adapter: await adapterOf(options),
    async close() {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

runOrgEventOutboxContract({ name: 'sqlite', open });

// The schema requires the topic; SQLite's column says so (MongoDB stores a document as given).
it('the SQLite outbox refuses a row without its topic', async () => {
  const db = await open();
  try {
    const row = { eventId: systemIds.next(), orgId: 'org-1', payload: '{}', state: 'ready', recordedAt: 1 };
    await expect(db.adapter.create({ model: OUTBOX_MODEL, data: row })).rejects.toThrow();
  } finally {
    await db.close();
  }
});

it('an auth.db of the previous shape: outbox rows without a topic, state or time are completed at start', async () => {
  const sqlite = openSqlite(':memory:');
  // The table as the previous build's schema made it: topic, state and recordedAt could be null.
  sqlite.exec(`CREATE TABLE orgEventOutbox (id TEXT PRIMARY KEY NOT NULL, eventId TEXT NOT NULL, orgId TEXT NOT NULL,
    payload TEXT NOT NULL, state TEXT, recordedAt INTEGER, topic TEXT)`);
  sqlite.exec(`INSERT INTO orgEventOutbox (id, eventId, orgId, payload) VALUES ('1', 'e1', 'org-1', '{}');
    INSERT INTO orgEventOutbox VALUES ('2', 'e2', 'org-1', '{}', 'intent', 5, 'billing.subscription')`);
  await createSqliteAccountsStore(sqlite).prepare(authOptionsFor(sqlite));
  expect(sqlite.prepare('SELECT eventId, topic, state, recordedAt FROM orgEventOutbox ORDER BY eventId').all()).toEqual(
    [
      { eventId: 'e1', topic: 'orgs.organization', state: 'ready', recordedAt: 0 },
      { eventId: 'e2', topic: 'billing.subscription', state: 'intent', recordedAt: 5 },
    ],
  );
  expect(sqliteSchemaVersion(sqlite, 'accounts')).toBe(1);
  // A second start finds nothing to do.
  await createSqliteAccountsStore(sqlite).prepare(authOptionsFor(sqlite));
  expect(sqliteSchemaVersion(sqlite, 'accounts')).toBe(1);
  sqlite.close();
});
