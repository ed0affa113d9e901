import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@formgate/store/sqlite';
import { getMigrations } from 'better-auth/db/migration';
import { adapterOf, authOptionsFor, runOrgEventOutboxContract } from './org-event-outbox.contract.ts';

runOrgEventOutboxContract({
  name: 'sqlite',
  async open() {
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
  },
});
