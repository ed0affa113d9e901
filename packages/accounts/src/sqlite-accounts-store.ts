import type { SqliteDb } from '@formgate/store/sqlite';
import { getMigrations } from 'better-auth/db/migration';
import type { AccountsStore } from './accounts-store.ts';

/** better-auth on a SQLite database (embedded mode): its migrations run at every start. */
export function createSqliteAccountsStore(db: SqliteDb): AccountsStore {
  return { database: db, prepare: async (options) => (await getMigrations(options)).runMigrations() };
}
