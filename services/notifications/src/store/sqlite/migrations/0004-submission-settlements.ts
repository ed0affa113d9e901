import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * The settlement records of no-store forms' submissions (issue 31), one per (submission, channel kind), the open
 * ones indexed by when the sweep looks at them; and the consumer batch that claimed a delivery (`batch_id`), so that
 * a delivery whose batch is still open is found by key. Deliveries claimed before this migration have none.
 */
export const submissionSettlements: SqliteMigration = {
  version: 4,
  name: 'create submission settlements, add deliveries.batch_id',
  up: (db) =>
    db.exec(`
CREATE TABLE IF NOT EXISTS submission_settlements (
  submission_id TEXT NOT NULL, kind TEXT NOT NULL, org_id TEXT NOT NULL, form_id TEXT NOT NULL,
  created_at TEXT NOT NULL, check_at TEXT, settled_at TEXT,
  PRIMARY KEY (submission_id, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS submission_settlements_due ON submission_settlements (check_at) WHERE settled_at IS NULL;
ALTER TABLE deliveries ADD COLUMN batch_id TEXT;
`),
};
