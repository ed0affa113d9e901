import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * The search row, FTS row and field names of an inserted submission are written by the read model's insert
 * (`createInsertDerivations`), not by a trigger that re-read them from the stored JSON with `json_each` (ADR 80).
 * Changes and deletes keep their triggers.
 */
export const indexInsertsInTheReadModel: SqliteMigration = {
  version: 2,
  name: 'index inserted submissions from the read model instead of a trigger',
  up: (db) => db.exec('DROP TRIGGER submissions_search_insert'),
};
