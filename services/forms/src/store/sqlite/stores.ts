import type { SqliteDb } from '@formgate/store/sqlite';
import type { FormsStores } from '../forms-stores.ts';
import { createSqliteBlockedCounts } from './blocked-counts.ts';
import { createSqliteErasures } from './erasures.ts';
import { createSqliteFormRepository } from './form-repository.ts';
import { createSqliteHeldSubmissions } from './held-submissions.ts';
import { createSqliteRetention } from './retention.ts';
import { createSqliteSubmissionChanges } from './submission-changes.ts';
import { createSqliteSubmissionReadModel } from './submission-read-model.ts';

/**
 * The forms stores on one SQLite file whose migrations have run (`sqliteFormsMigrations`); they share the file's
 * one connection, so a change and its counters are one transaction.
 */
export function createSqliteFormsStores(db: SqliteDb): FormsStores {
  return {
    forms: createSqliteFormRepository(db),
    submissions: createSqliteSubmissionReadModel(db),
    changes: createSqliteSubmissionChanges(db),
    held: createSqliteHeldSubmissions(db),
    blocked: createSqliteBlockedCounts(db),
    erasures: createSqliteErasures(db),
    retention: createSqliteRetention(db),
  };
}
