import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * The position index also holds what an export reads of a row with a kept CSV line (ADR 85): walking it down, SQLite
 * reads the row itself only for a line it cannot use, so an export does not seek the table once per row. Lines
 * longer than 900 characters are no longer kept (such a row is exported from its document), so that an index entry
 * stays within one cell of its page. The index is no longer unique: positions are given by the insert's one transaction
 * (`form_counters.next_seq`), and a unique index over the line would not have guarded them anyway.
 */
export const coverExportsWithThePositionIndex: SqliteMigration = {
  version: 4,
  name: 'cover exports with the position index',
  up: (db) =>
    db.exec(`
DROP INDEX submissions_by_position;
UPDATE submissions SET csv_line = NULL, csv_width = NULL WHERE length(csv_line) > 900;
CREATE INDEX submissions_by_position ON submissions (form_id, seq, deleted, org_id, csv_width, csv_line);
`),
};
