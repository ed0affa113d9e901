import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteOrgsStores, migrateSqliteOrgs } from '../src/store/sqlite/index.ts';

/** The orgs service's stores on a SQLite database (in memory by default), migrated as the embedded host does. */
export function sqliteOrgsStores(file = ':memory:') {
  const db = openSqlite(file);
  migrateSqliteOrgs(db);
  return createSqliteOrgsStores(db);
}
