import type { MongoMigration } from '@formgate/store/mongo';
import { createFormsSchema } from './0001-create-forms-schema.ts';
import { indexSubmitterAddresses } from './0002-index-submitter-addresses.ts';
import { keepRetention } from './0003-keep-retention.ts';
import { indexSubmissionFiles } from './0004-index-submission-files.ts';

/**
 * The forms store's MongoDB schema (its indexes), in order, run by the composition root before the adapters are
 * built: `runMongoMigrations(db, FORMS_MIGRATION_SCOPE, mongoFormsMigrations)`.
 */
export const mongoFormsMigrations: readonly MongoMigration[] = [
  createFormsSchema,
  indexSubmitterAddresses,
  keepRetention,
  indexSubmissionFiles,
];
