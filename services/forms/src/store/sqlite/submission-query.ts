import type { SqliteDb } from '@formgate/store/sqlite';
import { csvRows, paddedCsvLine } from '../csv-lines.ts';
import type { SubmissionFilter } from '../records.ts';
import { formToken, ftsMatch } from '../search-terms.ts';
import type { SubmissionReadModel } from '../submission-read-model.ts';
import { formRecords } from './schema.ts';

/** The columns a list or export reads, in raw mode (`formRecords`). */
const COLUMNS_READ = 's.id, s.created_at, s.seq, s.doc';
/** Whether an export of `?` columns must format the row from its document (three times in `CSV_COLUMNS_READ`). */
const NEEDS_DOC = '(s.csv_line IS NULL OR s.csv_width > ?)';
/**
 * The columns a CSV export reads (after its parameters, the export's column count three times): the position, the
 * kept line and its width (ADR 81), and the row's id, time and document only where that line cannot serve — none was
 * kept (a row stored before lines were, with a line too long to keep, or whose document changed since) or it has
 * cells for more columns than the export has. The first three are in the position index (ADR 85): SQLite defers the
 * seek of the row until a column outside it is read, so a kept line costs no read of the table.
 */
const CSV_COLUMNS_READ = `s.seq, s.csv_line, s.csv_width, iif(${NEEDS_DOC}, s.id, NULL), iif(${NEEDS_DOC}, s.created_at, NULL), iif(${NEEDS_DOC}, s.doc, NULL)`;
/** Rows per keyset page of an export: fewer statements per row, memory still flat. */
const EXPORT_PAGE = 2_000;

/**
 * The WHERE clause (on `submissions s`) and its parameters for a filter, without the search terms. Each filter is
 * served in list order by an index: `spam` by `submissions_by_spam`, `held` by `submissions_by_held` (form_id, …,
 * seq), a date range by `submissions_by_time` or the position index, which SQLite's planner picks between.
 */
function whereOf(filter: SubmissionFilter, formId: string, orgId: string, before: number | undefined) {
  // Deleted submissions stay as tombstones (`deleted = 1`) for their redelivery to be refused.
  const clauses = ['s.form_id = ?', 's.org_id = ?', 's.deleted = 0'];
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

type QueryMethods = Pick<
  SubmissionReadModel,
  'findSubmissions' | 'exportSubmissions' | 'exportCsvLines' | 'listFieldNames'
>;

/** Filters, search, export and field names of the SQLite read model (ADR 0022). */
export function createSqliteSubmissionQuery(db: SqliteDb): QueryMethods {
  const statements = new Map<string, ReturnType<typeof db.prepare<unknown[]>>>();
  const prepared = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare<unknown[]>(sql).raw(true);
      // The SQL depends only on which criteria are set (values are parameters): a few dozen shapes at most.
      statements.set(sql, stmt);
    }
    return stmt;
  };
  // Index `submissions_by_position` (form_id, seq, …), then the unique `submission_search.submission_id`.
  const rowidBelow = db.prepare(
    `SELECT ss.id FROM submissions s JOIN submission_search ss ON ss.submission_id = s.id
     WHERE s.form_id = ? AND s.seq < ? ORDER BY s.seq DESC LIMIT 1`,
  );
  // Unique index (form_id, name) of `form_field_names`, then sorted by `n` (the order first seen).
  const fieldNames = db.prepare(
    'SELECT n.name FROM form_field_names n JOIN forms f ON f.id = n.form_id WHERE f.org_id = ? AND n.form_id = ? ORDER BY n.n',
  );

  /**
   * One page of the rows `filter` matches, strictly before position `before`, newest first: `columns` read (after
   * `columnParams`, for the parameters in them) and mapped by `row`.
   */
  function select<T>(
    read: { columns: string; columnParams: unknown[]; row: (v: unknown[]) => T },
    orgId: string,
    formId: string,
    filter: SubmissionFilter,
    limit: number,
    before?: number,
  ): T[] {
    if (limit <= 0) return [];
    const { where, params } = whereOf(filter, formId, orgId, before);
    const terms = filter.terms ?? [];
    if (terms.length === 0) {
      const sql = `SELECT ${read.columns} FROM submissions s WHERE ${where} ORDER BY s.seq DESC LIMIT ?`;
      return (prepared(sql).all(...read.columnParams, ...params, limit) as unknown[][]).map(read.row);
    }
    // FTS drives, newest first by its rowid, and stops at the limit: within a form, `submission_search.id` grows
    // with `seq` (both are given in insert order), so rowid order is list order. A cursor becomes a rowid bound
    // (the row at or below it), so a deep page does not re-read the top.
    let bound = Number.MAX_SAFE_INTEGER;
    if (before !== undefined) {
      const row = rowidBelow.get(formId, before) as { id: number } | undefined;
      if (!row) return [];
      bound = row.id;
    }
    const sql = `SELECT ${read.columns} FROM submissions_fts f
      CROSS JOIN submission_search ss ON ss.id = f.rowid CROSS JOIN submissions s ON s.id = ss.submission_id
      WHERE submissions_fts MATCH ? AND f.rowid <= ? AND ${where} ORDER BY f.rowid DESC LIMIT ?`;
    const match = ftsMatch(formToken(formId), terms);
    return (prepared(sql).all(...read.columnParams, match, bound, ...params, limit) as unknown[][]).map(read.row);
  }

  const records = (formId: string, orgId: string) => ({
    columns: COLUMNS_READ,
    columnParams: [],
    row: formRecords(formId, orgId),
  });
  const find = (orgId: string, formId: string, filter: SubmissionFilter, limit: number, before?: number) =>
    select(records(formId, orgId), orgId, formId, filter, limit, before);

  /** Pages of `page(before)` (keyset: better-sqlite3 cannot keep a statement open across awaits). */
  async function* keyset<T>(page: (before: number | undefined) => T[], seqOf: (row: T) => number) {
    let before: number | undefined;
    for (;;) {
      const rows = page(before);
      if (rows.length > 0) yield rows;
      const last = rows.at(-1);
      if (last === undefined || rows.length < EXPORT_PAGE) return;
      before = seqOf(last);
    }
  }

  return {
    async findSubmissions(scope, formId, { filter, limit, after }) {
      return find(scope.orgId, formId, filter, limit, after?.seq);
    },
    exportSubmissions(scope, formId, filter) {
      return keyset(
        (before) => find(scope.orgId, formId, filter, EXPORT_PAGE, before),
        (r) => r.seq,
      );
    },
    async *exportCsvLines(scope, formId, filter, columns) {
      const width = columns.length;
      const formatted = csvRows(columns);
      const record = formRecords(formId, scope.orgId);
      // [seq, csv_line, csv_width, id, created_at, doc], the last three null where the kept line serves
      const read = {
        columns: CSV_COLUMNS_READ,
        columnParams: [width, width, width],
        row: (v: unknown[]) => v,
      };
      const pages = keyset(
        (before) => select(read, scope.orgId, formId, filter, EXPORT_PAGE, before),
        (v) => v[0] as number,
      );
      for await (const page of pages) {
        yield page.map((v) =>
          v[5] === null
            ? paddedCsvLine(v[1] as string, v[2] as number, width)
            : formatted(record([v[3], v[4], v[0], v[5]])),
        );
      }
    },
    async listFieldNames(scope, formId) {
      return (fieldNames.all(scope.orgId, formId) as { name: string }[]).map((r) => r.name);
    },
  };
}
