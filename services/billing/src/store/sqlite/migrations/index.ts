import type { MigrationRun } from '@formgate/store';
import { runSqliteMigrations, type SqliteDb, type SqliteMigration } from '@formgate/store/sqlite';
import { ledgers } from './0001-ledgers.ts';

/** Billing's SQLite schema, in order (ADR 72). A change ships as the next migration; a shipped one is never edited. */
export const billingSqliteMigrations: readonly SqliteMigration[] = [ledgers];

/** Brings billing's file to the latest shape; the composition root runs it once before building the stores. */
export const migrateSqliteBilling = (db: SqliteDb): MigrationRun =>
  runSqliteMigrations(db, 'billing', billingSqliteMigrations);
