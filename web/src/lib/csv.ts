/*
 * CSV written in the browser (the audit log's export), with the same rules as the server's submission exports
 * (services/forms/src/store/csv-lines.ts): RFC 4180 quoting, and no cell a spreadsheet would run as a formula.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV cell: quoted when it holds `"`, `,`, CR or LF, with `"` doubled. A cell a spreadsheet would read as a
 * formula (starting with `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'` (OWASP's CSV injection advice).
 */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A CSV document: a header line, then one line per row, each ending with CRLF. */
export const csvOf = (header: readonly string[], rows: readonly (readonly string[])[]) =>
  [header, ...rows].map((cells) => `${cells.map(csvCell).join(',')}\r\n`).join('');
