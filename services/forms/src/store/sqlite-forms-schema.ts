import type { SqliteDb } from '@formgate/store/sqlite';

const TABLES = `
CREATE TABLE IF NOT EXISTS forms (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, slug TEXT NOT NULL, key TEXT NOT NULL UNIQUE,
  doc TEXT NOT NULL, version INTEGER NOT NULL, published_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, UNIQUE (org_id, slug)
);
CREATE INDEX IF NOT EXISTS forms_unpublished ON forms (id) WHERE published_version < version;
CREATE TABLE IF NOT EXISTS submissions (
  id TEXT PRIMARY KEY, form_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS form_counters (form_id TEXT PRIMARY KEY, submissions INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS form_deletions (
  form_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL
);
`;

// Positions (ADR 0015). A database from before them numbers each form's submissions in the order it listed them.
const POSITIONS = `
ALTER TABLE submissions ADD COLUMN seq INTEGER;
ALTER TABLE form_counters ADD COLUMN next_seq INTEGER NOT NULL DEFAULT 0;
WITH ranked AS (
  SELECT id, ROW_NUMBER() OVER (PARTITION BY form_id ORDER BY created_at, id) - 1 AS seq FROM submissions
)
UPDATE submissions SET seq = ranked.seq FROM ranked WHERE submissions.id = ranked.id;
UPDATE form_counters SET next_seq = (SELECT COUNT(*) FROM submissions s WHERE s.form_id = form_counters.form_id);
DROP INDEX IF EXISTS submissions_by_form;
`;

/** Creates or upgrades the forms database: `submissions.seq` and `form_counters.next_seq` hold the positions. */
export function prepareFormsSchema(db: SqliteDb): void {
  db.exec(TABLES);
  const hasPositions = db.prepare(`SELECT 1 FROM pragma_table_info('submissions') WHERE name = 'seq'`).get();
  if (!hasPositions) db.transaction(() => db.exec(POSITIONS))();
  db.exec('CREATE UNIQUE INDEX IF NOT EXISTS submissions_by_position ON submissions (form_id, seq)');
}
