import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemIds } from '@formgate/kit';
import { openSqlite } from '@formgate/store/sqlite';
import { getMigrations } from 'better-auth/db/migration';
import { expect, it } from 'vitest';
import { OUTBOX_MODEL } from '../src/org-events/schema.ts';
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
