import type { MigrationRun } from '@formgate/store';
import { type MongoDb, type MongoMigration, runMongoMigrations } from '@formgate/store/mongo';
import { orgIndexes } from './0001-org-indexes.ts';
import { auditChain } from './0002-audit-chain.ts';

/** The orgs service's MongoDB schema (its indexes), in order (ADR 72). A shipped migration is never edited. */
export const orgsMongoMigrations: readonly MongoMigration[] = [orgIndexes, auditChain];

/** Brings the orgs database to the latest shape; the composition root runs it once before building the stores. */
export const migrateMongoOrgs = (db: MongoDb): Promise<MigrationRun> =>
  runMongoMigrations(db, 'orgs', orgsMongoMigrations);
