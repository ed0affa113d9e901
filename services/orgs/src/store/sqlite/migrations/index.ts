import type { MigrationRun } from '@formgate/store';
import { runSqliteMigrations, type SqliteDb, type SqliteMigration } from '@formgate/store/sqlite';
import { organizations } from './0001-organizations.ts';
import { auditChain } from './0002-audit-chain.ts';

/** The orgs service's SQLite schema, in order (ADR 72). A shipped migration is never edited. */
export const orgsSqliteMigrations: readonly SqliteMigration[] = [organizations, auditChain];

/** Brings the orgs file to the latest shape; the composition root runs it once before building the stores. */
export const migrateSqliteOrgs = (db: SqliteDb): MigrationRun => runSqliteMigrations(db, 'orgs', orgsSqliteMigrations);
