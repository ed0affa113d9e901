import type { SqliteDb } from '@formgate/store/sqlite';
import type { StoredSubmission, SubmissionFilter } from '../records.ts';
import { formToken, ftsMatch } from '../search-terms.ts';
import type { SubmissionReadModel } from '../submission-read-model.ts';
import { formRecords } from './schema.ts';

/** The columns a list or export reads, in raw mode (`formRecords`). */
const COLUMNS_READ = 's.id, s.created_at, s.seq, s.doc';
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

type QueryMethods = Pick<SubmissionReadModel, 'findSubmissions' | 'exportSubmissions' | 'listFieldNames'>;

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
  // Index `submissions_by_position` (form_id, seq), then the unique `submission_search.submission_id`.
  const rowidBelow = db.prepare(
    `SELECT ss.id FROM submissions s JOIN submission_search ss ON ss.submission_id = s.id
     WHERE s.form_id = ? AND s.seq < ? ORDER BY s.seq DESC LIMIT 1`,
  );
  // Unique index (form_id, name) of `form_field_names`, then sorted by `n` (the order first seen).
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
    const { where, params } = whereOf(filter, formId, orgId, before);
    const terms = filter.terms ?? [];
    if (terms.length === 0) {
      const sql = `SELECT ${COLUMNS_READ} FROM submissions s WHERE ${where} ORDER BY s.seq DESC LIMIT ?`;
      return (prepared(sql).all(...params, limit) as unknown[][]).map(formRecords(formId, orgId));
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
    const sql = `SELECT ${COLUMNS_READ} FROM submissions_fts f
      CROSS JOIN submission_search ss ON ss.id = f.rowid CROSS JOIN submissions s ON s.id = ss.submission_id
      WHERE submissions_fts MATCH ? AND f.rowid <= ? AND ${where} ORDER BY f.rowid DESC LIMIT ?`;
    return (prepared(sql).all(ftsMatch(formToken(formId), terms), bound, ...params, limit) as unknown[][]).map(
      formRecords(formId, orgId),
    );
  }

  return {
    async findSubmissions(scope, formId, { filter, limit, after }) {
      return find(scope.orgId, formId, filter, limit, after?.seq);
    },
    async *exportSubmissions(scope, formId, filter) {
      // Keyset pages: better-sqlite3 cannot keep a statement open across awaits, and a page keeps memory flat.
      let before: number | undefined;
      for (;;) {
        const page = find(scope.orgId, formId, filter, EXPORT_PAGE, before);
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (!last || page.length < EXPORT_PAGE) return;
        before = last.seq;
      }
    },
    async listFieldNames(scope, formId) {
      return (fieldNames.all(scope.orgId, formId) as { name: string }[]).map((r) => r.name);
    },
  };
}
