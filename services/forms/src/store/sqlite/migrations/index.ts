import type { SqliteMigration } from '@formgate/store/sqlite';
import { createFormsSchema } from './0001-create-forms-schema.ts';
import { indexInsertsInTheReadModel } from './0002-index-inserts-in-the-read-model.ts';
import { keepCsvLines } from './0003-keep-csv-lines.ts';
import { coverExportsWithThePositionIndex } from './0004-cover-exports-with-the-position-index.ts';
import { indexSubmitterAddresses } from './0005-index-submitter-addresses.ts';
import { keepRetention } from './0006-keep-retention.ts';
import { indexSubmissionFiles } from './0007-index-submission-files.ts';

/**
 * The forms store's SQLite schema, in order, run by the composition root before the adapters are built:
 * `runSqliteMigrations(db, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations)`.
 */
export const sqliteFormsMigrations: readonly SqliteMigration[] = [
  createFormsSchema,
  indexInsertsInTheReadModel,
  keepCsvLines,
  coverExportsWithThePositionIndex,
  indexSubmitterAddresses,
  keepRetention,
  indexSubmissionFiles,
];
