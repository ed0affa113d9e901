import type { MigrationRun } from '@formgate/store';
import { type MongoDb, type MongoMigration, runMongoMigrations } from '@formgate/store/mongo';
import { ledgerIndexes } from './0001-ledger-indexes.ts';

/** Billing's MongoDB schema (its indexes), in order (ADR 72). A shipped migration is never edited. */
export const billingMongoMigrations: readonly MongoMigration[] = [ledgerIndexes];

/** Brings billing's database to the latest shape; the composition root runs it once before building the stores. */
export const migrateMongoBilling = (db: MongoDb): Promise<MigrationRun> =>
  runMongoMigrations(db, 'billing', billingMongoMigrations);
