import { type MongoConnection, runMongoMigrations } from '@formgate/store/mongo';
import { FORMS_MIGRATION_SCOPE, type FormsStores } from '../src/store/forms-stores.ts';
import { mongoFormsMigrations } from '../src/store/mongo/migrations/index.ts';
import { createMongoFormsStores, type MongoFormsStoresOptions } from '../src/store/mongo/stores.ts';

/** The forms stores on a migrated database, as `main.ts` builds them. */
export async function openMongoFormsStores(
  conn: MongoConnection,
  options: MongoFormsStoresOptions = {},
): Promise<FormsStores> {
  const { db } = conn;
  if (!db) throw new Error('not connected');
  await runMongoMigrations(db, FORMS_MIGRATION_SCOPE, mongoFormsMigrations);
  return createMongoFormsStores(db, options);
}
