import type { MigrationRun } from '@formgate/store';
import { type MongoDb, type MongoMigration, runMongoMigrations } from '@formgate/store/mongo';
import { createAccountsIndexes } from './0001-create-accounts-indexes.ts';

export const ACCOUNTS_MIGRATION_SCOPE = 'accounts';

/** The accounts database's MongoDB schema (Formgate's indexes), in order (ADR 72). A shipped migration is never edited. */
export const mongoAccountsMigrations: readonly MongoMigration[] = [createAccountsIndexes];

/** Brings the accounts database to the latest shape: `accounts.start()` runs it (the store's `prepare`). */
export const migrateMongoAccounts = (db: MongoDb): Promise<MigrationRun> =>
  runMongoMigrations(db, ACCOUNTS_MIGRATION_SCOPE, mongoAccountsMigrations);
