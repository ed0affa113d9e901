import type { MongoConnection } from '@formgate/store/mongo';
import { openSqlite, type SqliteDb } from '@formgate/store/sqlite';
import { migrateMongoNotifications } from '../src/store/mongo/migrations/index.ts';
import { migrateSqliteNotifications } from '../src/store/sqlite/migrations/index.ts';

/** A notifications SQLite database at the latest schema, as the composition root leaves it. */
export function migratedSqlite(file = ':memory:'): SqliteDb {
  const db = openSqlite(file);
  migrateSqliteNotifications(db);
  return db;
}

/** The connection, its notifications collections migrated (indexes created) as the composition root does. */
export async function migratedMongo(conn: MongoConnection): Promise<MongoConnection> {
  if (!conn.db) throw new Error('the test database is not open');
  await migrateMongoNotifications(conn.db);
  return conn;
}
