import type { SqliteMigration } from '@formgate/store/sqlite';

/** The text FTS indexes for a submission row: its field values, never its field names. */
const BODY_OF = (row: string) =>
  `(SELECT group_concat(json_extract(value, '$.value'), ' ') FROM json_each(${row}.doc, '$.fields'))`;
const FORM_TOKEN_OF = (row: string) => `'f' || lower(replace(${row}.form_id, '-', ''))`;

/**
 * Forms with their outbox marks (`published_version`), and the submissions read model:
 * - `submissions` keep their position (`seq`, ADR 0015) and, once deleted, a tombstone (`deleted = 1`, ADR 0020);
 *   `spam` and `held` are virtual columns over the stored JSON, indexed with (`form_id`, …, `seq`) so a filtered
 *   page is an index range in list order (ADR 0022); `submissions_held_by_org` finds an organization's oldest held.
 * - `form_counters` (totals, the next position) and `form_days` (per UTC day) are changed in the transaction of
 *   each insert and change; `submission_changes` is the outbox of changes, `form_deletions` of deleted forms.
 * - `submissions_fts` is a contentless FTS5 table (`unicode61 remove_diacritics 2`). Its rowid is the stable
 *   `submission_search.id` (INTEGER PRIMARY KEY AUTOINCREMENT: never renumbered by VACUUM, never reused), kept in
 *   step by triggers on `submissions`, i.e. in the transaction of every insert, change and delete, whoever writes.
 * - `form_field_names` collects each form's field names in the order first seen, by the same insert trigger.
 * - `blocked_days` and `blocked_reports` count blocked requests (issue 14); `release_ledgers` the releases of held
 *   submissions (issue 13).
 */
const SCHEMA = `
CREATE TABLE forms (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, slug TEXT NOT NULL, key TEXT NOT NULL UNIQUE,
  doc TEXT NOT NULL, version INTEGER NOT NULL, published_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, UNIQUE (org_id, slug)
);
CREATE INDEX forms_unpublished ON forms (id) WHERE published_version < version;
CREATE TABLE form_deletions (
  form_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL
);

CREATE TABLE submissions (
  id TEXT PRIMARY KEY, form_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL,
  seq INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
  spam INTEGER GENERATED ALWAYS AS (json_extract(doc, '$.spam.isSpam')) VIRTUAL,
  held INTEGER GENERATED ALWAYS AS (json_extract(doc, '$.held')) VIRTUAL
);
CREATE UNIQUE INDEX submissions_by_position ON submissions (form_id, seq);
CREATE INDEX submissions_by_spam ON submissions (form_id, spam, seq);
CREATE INDEX submissions_by_held ON submissions (form_id, held, seq);
CREATE INDEX submissions_by_time ON submissions (form_id, created_at);
CREATE INDEX submissions_held_by_org ON submissions (org_id, created_at, id) WHERE held = 1 AND deleted = 0;

CREATE TABLE form_counters (
  form_id TEXT PRIMARY KEY, submissions INTEGER NOT NULL, next_seq INTEGER NOT NULL DEFAULT 0,
  spam INTEGER NOT NULL DEFAULT 0, last_at TEXT, held INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE form_days (
  form_id TEXT NOT NULL, day TEXT NOT NULL, total INTEGER NOT NULL, spam INTEGER NOT NULL,
  PRIMARY KEY (form_id, day)
) WITHOUT ROWID;
CREATE TABLE submission_changes (
  n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, form_id TEXT NOT NULL, doc TEXT NOT NULL
);

CREATE TABLE submission_search (id INTEGER PRIMARY KEY AUTOINCREMENT, submission_id TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE submissions_fts USING fts5(
  form, body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE form_field_names (
  n INTEGER PRIMARY KEY, form_id TEXT NOT NULL, name TEXT NOT NULL, UNIQUE (form_id, name)
);
CREATE TRIGGER submissions_search_insert AFTER INSERT ON submissions BEGIN
  INSERT INTO submission_search (submission_id) VALUES (new.id);
  INSERT INTO submissions_fts (rowid, form, body) VALUES (last_insert_rowid(), ${FORM_TOKEN_OF('new')}, ${BODY_OF('new')});
  INSERT OR IGNORE INTO form_field_names (form_id, name)
    SELECT new.form_id, json_extract(value, '$.name') FROM json_each(new.doc, '$.fields');
END;
CREATE TRIGGER submissions_search_update AFTER UPDATE OF doc ON submissions BEGIN
  DELETE FROM submissions_fts WHERE rowid = (SELECT id FROM submission_search WHERE submission_id = new.id);
  INSERT INTO submissions_fts (rowid, form, body)
    SELECT id, ${FORM_TOKEN_OF('new')}, ${BODY_OF('new')} FROM submission_search WHERE submission_id = new.id;
END;
CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
  DELETE FROM submissions_fts WHERE rowid = (SELECT id FROM submission_search WHERE submission_id = old.id);
  DELETE FROM submission_search WHERE submission_id = old.id;
END;
CREATE TRIGGER forms_field_names_delete AFTER DELETE ON forms BEGIN
  DELETE FROM form_field_names WHERE form_id = old.id;
END;

CREATE TABLE release_ledgers (org_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE blocked_days (
  form_id TEXT NOT NULL, day TEXT NOT NULL, org_id TEXT NOT NULL, blocked INTEGER NOT NULL,
  PRIMARY KEY (form_id, day)
) WITHOUT ROWID;
CREATE INDEX blocked_days_by_org ON blocked_days (org_id);
CREATE TABLE blocked_reports (id TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
`;

export const createFormsSchema: SqliteMigration = {
  version: 1,
  name: 'create forms, submissions, counters, outboxes, search and blocked counts',
  up: (db) => db.exec(SCHEMA),
};
