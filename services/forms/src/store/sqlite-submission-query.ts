import type { SqliteDb } from '@formgate/store/sqlite';
import type { FormsStore, SubmissionFilter } from './forms-store.ts';
import { formToken, ftsMatch } from './search-terms.ts';
import type { StoredSubmission } from './submission-record.ts';

/** The text FTS indexes for a submission row: its field values, never its field names. */
const BODY_OF = (row: string) =>
  `(SELECT group_concat(json_extract(value, '$.value'), ' ') FROM json_each(${row}.doc, '$.fields'))`;
const FORM_TOKEN_OF = (row: string) => `'f' || lower(replace(${row}.form_id, '-', ''))`;

/**
 * Filters, search and field names of the SQLite read model (ADR 0022):
 * - `spam` and `held` are virtual columns over the stored JSON, indexed with `(form_id, …, seq)`, so a filtered
 *   page is an index range in list order; the date range uses `(form_id, created_at)` or the position index.
 * - `submissions_fts` is a contentless FTS5 table (`unicode61 remove_diacritics 2`). Its rowid is the stable
 *   `submission_search.id` (INTEGER PRIMARY KEY AUTOINCREMENT: never renumbered by VACUUM, never reused), kept in
 *   step by triggers on `submissions`, i.e. in the transaction of every insert and delete, whoever writes.
 * - `form_field_names` collects each form's field names in the order first seen, by the same insert trigger.
 * A database without them is given them at open, with every existing row indexed.
 */
const SCHEMA = `
CREATE TABLE submission_search (id INTEGER PRIMARY KEY AUTOINCREMENT, submission_id TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE submissions_fts USING fts5(
  form, body, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS form_field_names (
  n INTEGER PRIMARY KEY, form_id TEXT NOT NULL, name TEXT NOT NULL, UNIQUE (form_id, name)
);
INSERT INTO submission_search (submission_id) SELECT id FROM submissions ORDER BY form_id, seq;
INSERT INTO submissions_fts (rowid, form, body)
  SELECT ss.id, ${FORM_TOKEN_OF('s')}, ${BODY_OF('s')}
  FROM submission_search ss JOIN submissions s ON s.id = ss.submission_id;
INSERT OR IGNORE INTO form_field_names (form_id, name)
  SELECT s.form_id, json_extract(f.value, '$.name')
  FROM (SELECT * FROM submissions ORDER BY form_id, seq) s, json_each(s.doc, '$.fields') f;
CREATE TRIGGER submissions_search_insert AFTER INSERT ON submissions BEGIN
  INSERT INTO submission_search (submission_id) VALUES (new.id);
  INSERT INTO submissions_fts (rowid, form, body) VALUES (last_insert_rowid(), ${FORM_TOKEN_OF('new')}, ${BODY_OF('new')});
  INSERT OR IGNORE INTO form_field_names (form_id, name)
    SELECT new.form_id, json_extract(value, '$.name') FROM json_each(new.doc, '$.fields');
END;
CREATE TRIGGER submissions_search_delete AFTER DELETE ON submissions BEGIN
  DELETE FROM submissions_fts WHERE rowid = (SELECT id FROM submission_search WHERE submission_id = old.id);
  DELETE FROM submission_search WHERE submission_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS forms_field_names_delete AFTER DELETE ON forms BEGIN
  DELETE FROM form_field_names WHERE form_id = old.id;
END;
`;

/** A changed document (a spam mark, a tombstone's emptied fields) is indexed again, in the same transaction. */
const UPDATE_TRIGGER = `
CREATE TRIGGER IF NOT EXISTS submissions_search_update AFTER UPDATE OF doc ON submissions BEGIN
  DELETE FROM submissions_fts WHERE rowid = (SELECT id FROM submission_search WHERE submission_id = new.id);
  INSERT INTO submissions_fts (rowid, form, body)
    SELECT id, ${FORM_TOKEN_OF('new')}, ${BODY_OF('new')} FROM submission_search WHERE submission_id = new.id;
END;
`;

const COLUMNS = `
ALTER TABLE submissions ADD COLUMN spam INTEGER GENERATED ALWAYS AS (json_extract(doc, '$.spam.isSpam')) VIRTUAL;
ALTER TABLE submissions ADD COLUMN held INTEGER GENERATED ALWAYS AS (json_extract(doc, '$.held')) VIRTUAL;
`;

const INDEXES = `
CREATE INDEX IF NOT EXISTS submissions_by_spam ON submissions (form_id, spam, seq);
CREATE INDEX IF NOT EXISTS submissions_by_held ON submissions (form_id, held, seq);
CREATE INDEX IF NOT EXISTS submissions_by_time ON submissions (form_id, created_at);
`;

/** Adds what filters and search need to a forms database (after `prepareFormsSchema`), in one transaction. */
export function prepareSubmissionQuerySchema(db: SqliteDb): void {
  const has = (sql: string) => db.prepare(sql).get() !== undefined;
  db.transaction(() => {
    if (!has(`SELECT 1 FROM pragma_table_xinfo('submissions') WHERE name = 'spam'`)) db.exec(COLUMNS);
    db.exec(INDEXES);
    if (!has(`SELECT 1 FROM sqlite_master WHERE name = 'submissions_fts'`)) db.exec(SCHEMA);
    db.exec(UPDATE_TRIGGER);
  }).immediate();
}

/** Not `s.*`: that would also compute the virtual `spam` and `held` columns of every row read. */
const COLUMNS_READ = 's.id, s.form_id, s.org_id, s.created_at, s.seq, s.doc';

interface Row {
  id: string;
  form_id: string;
  org_id: string;
  created_at: string;
  seq: number;
  doc: string;
}

/** The WHERE clause (on `submissions s`) and its parameters for a filter, without the search terms. */
function whereOf(filter: SubmissionFilter, formId: string, orgId: string, before: number | undefined, live: boolean) {
  const clauses = ['s.form_id = ?', 's.org_id = ?'];
  // Deleted submissions stay as tombstones (`deleted = 1`) where the store keeps them (submission changes).
  if (live) clauses.push('s.deleted = 0');
  const params: (string | number)[] = [formId, orgId];
  if (filter.spam !== undefined) clauses.push(`s.spam = ${filter.spam ? 1 : 0}`);
  if (filter.held !== undefined) clauses.push(`s.held = ${filter.held ? 1 : 0}`);
  if (filter.from !== undefined) {
    clauses.push('s.created_at >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    clauses.push('s.created_at < ?');
    params.push(filter.to);
  }
  if (before !== undefined) {
    clauses.push('s.seq < ?');
    params.push(before);
  }
  return { where: clauses.join(' AND '), params };
}

type QueryMethods = Pick<FormsStore, 'findSubmissions' | 'exportSubmissions' | 'listFieldNames'>;

/** `findSubmissions`, `exportSubmissions` and `listFieldNames` on SQLite; `toRecord` decodes a `submissions` row. */
export function createSqliteSubmissionQuery(db: SqliteDb, toRecord: (row: Row) => StoredSubmission): QueryMethods {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[]>>>();
  const prepared = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare<unknown[]>(sql);
      // The SQL depends only on which criteria are set (values are parameters): a few dozen shapes at most.
      statements.set(sql, stmt);
    }
    return stmt;
  };
  let tombstones: boolean | undefined;
  // Asked at the first read, once every schema of the store has been prepared.
  const hasTombstones = () => {
    tombstones ??=
      db.prepare(`SELECT 1 FROM pragma_table_info('submissions') WHERE name = 'deleted'`).get() !== undefined;
    return tombstones;
  };
  const rowidBelow = db.prepare(
    `SELECT ss.id FROM submissions s JOIN submission_search ss ON ss.submission_id = s.id
     WHERE s.form_id = ? AND s.seq < ? ORDER BY s.seq DESC LIMIT 1`,
  );
  const fieldNames = db.prepare(
    'SELECT n.name FROM form_field_names n JOIN forms f ON f.id = n.form_id WHERE f.org_id = ? AND n.form_id = ? ORDER BY n.n',
  );

  function find(
    orgId: string,
    formId: string,
    filter: SubmissionFilter,
    limit: number,
    before?: number,
  ): StoredSubmission[] {
    if (limit <= 0) return [];
    const { where, params } = whereOf(filter, formId, orgId, before, hasTombstones());
    const terms = filter.terms ?? [];
    if (terms.length === 0) {
      const sql = `SELECT ${COLUMNS_READ} FROM submissions s WHERE ${where} ORDER BY s.seq DESC LIMIT ?`;
      return (prepared(sql).all(...params, limit) as Row[]).map(toRecord);
    }
    // FTS drives, newest first by its rowid, and stops at the limit: within a form, `submission_search.id` grows
    // with `seq` (both are given in insert order, and the rebuild at open inserts by `seq`), so rowid order is list
    // order. A cursor becomes a rowid bound (the row at or below it), so a deep page does not re-read the top.
    let bound = Number.MAX_SAFE_INTEGER;
    if (before !== undefined) {
      const row = rowidBelow.get(formId, before) as { id: number } | undefined;
      if (!row) return [];
      bound = row.id;
    }
    const sql = `SELECT ${COLUMNS_READ} FROM submissions_fts f
      CROSS JOIN submission_search ss ON ss.id = f.rowid CROSS JOIN submissions s ON s.id = ss.submission_id
      WHERE submissions_fts MATCH ? AND f.rowid <= ? AND ${where} ORDER BY f.rowid DESC LIMIT ?`;
    return (prepared(sql).all(ftsMatch(formToken(formId), terms), bound, ...params, limit) as Row[]).map(toRecord);
  }

  return {
    async findSubmissions(scope, formId, { filter, limit, after }) {
      return find(scope.orgId, formId, filter, limit, after?.seq);
    },
    async *exportSubmissions(scope, formId, filter) {
      // Keyset pages: better-sqlite3 cannot keep a statement open across awaits, and a page keeps memory flat.
      let before: number | undefined;
      for (;;) {
        const page = find(scope.orgId, formId, filter, 500, before);
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (!last || page.length < 500) return;
        before = last.seq;
      }
    },
    async listFieldNames(scope, formId) {
      return (fieldNames.all(scope.orgId, formId) as { name: string }[]).map((r) => r.name);
    },
  };
}
