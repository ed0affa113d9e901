import type { SqliteMigration } from '@formgate/store/sqlite';
import { completeOutboxRows } from './0001-complete-outbox-rows.ts';

/**
 * Formgate's own changes to the accounts database's SQLite schema, in order (ADR 72), run by the store's `prepare`
 * after better-auth's migrations (which make its tables). A shipped migration is never edited.
 */
export const sqliteAccountsMigrations: readonly SqliteMigration[] = [completeOutboxRows];
