import { mongodbAdapter } from 'better-auth/adapters/mongodb';
import type { Db } from 'mongodb';
import type { AccountsStore } from '../accounts-store.ts';
import { migrateMongoAccounts } from './migrations/index.ts';

export { ACCOUNTS_MIGRATION_SCOPE } from '../accounts-store.ts';
export { migrateMongoAccounts, mongoAccountsMigrations } from './migrations/index.ts';

/**
 * better-auth on a MongoDB database (distributed mode), without transactions (FerretDB has none to offer). Its
 * adapter creates the indexes better-auth's schemas declare; `prepare` runs Formgate's numbered migrations.
 */
export function createMongoAccountsStore(db: Db): AccountsStore {
  return {
    database: mongodbAdapter(db, { transaction: false }),
    prepare: async () => void (await migrateMongoAccounts(db)),
  };
}
