import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * Each submission keeps its CSV line (ADR 81): `csv_line` (`storedCsvLine`, written by the read model's insert) and
 * `csv_width`, its number of field-name columns. A changed document forgets its line, and exports format the
 * document instead; so do rows stored before this migration (their line is NULL).
 */
export const keepCsvLines: SqliteMigration = {
  version: 3,
  name: 'keep each submission CSV line',
  up: (db) =>
    db.exec(`
ALTER TABLE submissions ADD COLUMN csv_line TEXT;
ALTER TABLE submissions ADD COLUMN csv_width INTEGER;
CREATE TRIGGER submissions_csv_line_forget AFTER UPDATE OF doc ON submissions BEGIN
  UPDATE submissions SET csv_line = NULL, csv_width = NULL WHERE rowid = new.rowid;
END;
`),
};
