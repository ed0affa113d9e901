import type { StoredSubmission } from './records.ts';

/**
 * The CSV form of a submission, which every export writes and the SQLite read model keeps with each row (ADR 81):
 * `id,createdAt,spam` and then one cell per field-name column of the form, in the order the names were first seen.
 */

/** Most field-name columns of a CSV export; names seen after that are left out (JSON keeps every field). */
export const MAX_CSV_FIELD_COLUMNS = 1_000;
const CSV_LINE_END = '\r\n';

/**
 * A CSV cell (RFC 4180): quoted when it holds `"`, `,`, CR or LF, with `"` doubled. A cell a spreadsheet would read
 * as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'` (OWASP's CSV injection advice).
 */
const PLAIN_CELL = /^(?![=+\-@\t\r])[^",\r\n]*$/;

export function csvCell(value: string): string {
  if (PLAIN_CELL.test(value)) return value;
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvLine = (cells: readonly string[]) => `${cells.map(csvCell).join(',')}${CSV_LINE_END}`;

type CsvSource = Pick<StoredSubmission, 'id' | 'createdAt' | 'spam' | 'fields'>;

/**
 * The CSV line writer of an export whose field-name columns are `columns` (each line ends with `CSV_LINE_END`): each
 * field goes to its column's cell by a lookup of its name, and a field sent more than once has its values joined
 * with a line break in its one cell. One array of cells is reused for every line: nothing is allocated per line but
 * the strings themselves.
 */
export function csvRows(columns: readonly string[]) {
  const index = new Map(columns.map((c, i) => [c, i]));
  const cells: (string | undefined)[] = new Array(columns.length).fill(undefined);
  return (s: CsvSource): string => {
    for (const f of s.fields) {
      const i = index.get(f.name);
      if (i === undefined) continue;
      const seen = cells[i];
      cells[i] = seen === undefined ? f.value : `${seen}\n${f.value}`;
    }
    let line = `${csvCell(s.id)},${csvCell(s.createdAt)},${s.spam.isSpam}`;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i];
      line += cell === undefined || cell === '' ? ',' : `,${csvCell(cell)}`;
      cells[i] = undefined;
    }
    return `${line}${CSV_LINE_END}`;
  };
}

/**
 * The line a read model keeps for a submission of a form whose columns are `positions` (field name → column, in
 * the order first seen, the submission's own names included): the line without `CSV_LINE_END`, and its `width`, the
 * number of field-name columns it has cells for (up to its last non-empty one, at most `MAX_CSV_FIELD_COLUMNS`). An
 * export with more columns pads it with empty cells; one with fewer cannot use it.
 */
export function storedCsvLine(s: CsvSource, positions: ReadonlyMap<string, number>): { line: string; width: number } {
  const cells = new Map<number, string>();
  for (const f of s.fields) {
    const i = positions.get(f.name);
    if (i === undefined || i >= MAX_CSV_FIELD_COLUMNS) continue;
    const seen = cells.get(i);
    cells.set(i, seen === undefined ? f.value : `${seen}\n${f.value}`);
  }
  let line = `${csvCell(s.id)},${csvCell(s.createdAt)},${s.spam.isSpam}`;
  let width = 0;
  for (const i of [...cells.keys()].sort((a, b) => a - b)) {
    const cell = cells.get(i) as string;
    if (cell === '') continue;
    line += `${','.repeat(i - width)},${csvCell(cell)}`;
    width = i + 1;
  }
  return { line, width };
}

/** A kept line (`storedCsvLine`) in an export of `columns` columns, at least its `width`. */
export const paddedCsvLine = (line: string, width: number, columns: number) =>
  `${line}${','.repeat(columns - width)}${CSV_LINE_END}`;

/** `csvRows(columns)` of every submission of `batches`, batch by batch (a read model that keeps no lines). */
export async function* csvLinesOf(
  batches: AsyncIterable<StoredSubmission[]>,
  columns: readonly string[],
): AsyncGenerator<string[]> {
  const row = csvRows(columns);
  for await (const batch of batches) yield batch.map(row);
}
