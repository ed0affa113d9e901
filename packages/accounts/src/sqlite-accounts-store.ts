import { runSqliteMigrations, type SqliteDb } from '@formgate/store/sqlite';
import { getMigrations } from 'better-auth/db/migration';
import { ACCOUNTS_MIGRATION_SCOPE, type AccountsStore } from './accounts-store.ts';
import { sqliteAccountsMigrations } from './sqlite/migrations/index.ts';

/**
 * better-auth on a SQLite database (embedded mode): its migrations run at every start, then Formgate's numbered ones
 * (`sqlite/migrations/`).
 */
export function createSqliteAccountsStore(db: SqliteDb): AccountsStore {
  return {
    database: db,
    prepare: async (options) => {
      await (await getMigrations(options)).runMigrations();
      runSqliteMigrations(db, ACCOUNTS_MIGRATION_SCOPE, sqliteAccountsMigrations);
    },
  };
}
