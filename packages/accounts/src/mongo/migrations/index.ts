import type { MigrationRun } from '@formgate/store';
import { type MongoDb, type MongoMigration, runMongoMigrations } from '@formgate/store/mongo';
import { ACCOUNTS_MIGRATION_SCOPE } from '../../accounts-store.ts';
import { createAccountsIndexes } from './0001-create-accounts-indexes.ts';
import { completeOutboxRows } from './0002-complete-outbox-rows.ts';
import { createSsoProviderIndex } from './0003-create-sso-provider-index.ts';

/**
 * The accounts database's MongoDB schema (Formgate's indexes and outbox rows), in order (ADR 72). A shipped migration
 * is never edited.
 */
export const mongoAccountsMigrations: readonly MongoMigration[] = [
  createAccountsIndexes,
  completeOutboxRows,
  createSsoProviderIndex,
];

/** Brings the accounts database to the latest shape: `accounts.start()` runs it (the store's `prepare`). */
export const migrateMongoAccounts = (db: MongoDb): Promise<MigrationRun> =>
  runMongoMigrations(db, ACCOUNTS_MIGRATION_SCOPE, mongoAccountsMigrations);
