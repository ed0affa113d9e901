import { openSqlite, runSqliteMigrations, type SqliteDb } from '@formgate/store/sqlite';
import { FORMS_MIGRATION_SCOPE, type FormsStores } from '../src/store/forms-stores.ts';
import { sqliteFormsMigrations } from '../src/store/sqlite/migrations/index.ts';
import { createSqliteFormsStores } from '../src/store/sqlite/stores.ts';

/** The forms stores on a migrated SQLite database (`:memory:` unless given), as the embedded host builds them. */
export function openSqliteFormsStores(db: SqliteDb = openSqlite(':memory:')): FormsStores {
  runSqliteMigrations(db, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations);
  return createSqliteFormsStores(db);
}
