import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Form } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Response } from 'express';
import type { StoredSubmission, SubmissionFilter } from '../store/records.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

export type ExportFormat = 'csv' | 'json' | 'ndjson';

/** Most field-name columns of a CSV export; names seen after that are left out (JSON keeps every field). */
export const MAX_CSV_FIELD_COLUMNS = 1_000;
/** Characters gathered before a chunk is handed to the response (fewer, larger writes). */
const CHUNK_CHARS = 64 * 1024;

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

const csvLine = (cells: readonly string[]) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * A CSV row formatter for `columns`: each field goes to its column's cell by a lookup of its name, and a field sent
 * more than once has its values joined with a line break in its one cell. One array of cells is reused for every
 * row: nothing is allocated per row but the strings themselves.
 */
export function csvRows(columns: readonly string[]) {
  const index = new Map(columns.map((c, i) => [c, i]));
  const cells: (string | undefined)[] = new Array(columns.length).fill(undefined);
  return (s: Pick<StoredSubmission, 'id' | 'createdAt' | 'spam' | 'fields'>): string => {
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
    return `${line}\r\n`;
  };
}

const jsonItem = (s: StoredSubmission) =>
  JSON.stringify({
    id: s.id,
    createdAt: s.createdAt,
    spam: s.spam.isSpam,
    held: s.held,
    fields: s.fields,
    files: s.files,
  });

async function* exportText(
  batches: AsyncIterable<StoredSubmission[]>,
  format: ExportFormat,
  columns: readonly string[],
): AsyncGenerator<string> {
  let buffer =
    format === 'csv' ? `\uFEFF${csvLine(['id', 'createdAt', 'spam', ...columns])}` : format === 'json' ? '[' : '';
  let first = true;
  const csvRow = csvRows(columns);
  for await (const batch of batches) {
    for (const s of batch) {
      if (format === 'csv') buffer += csvRow(s);
      else if (format === 'ndjson') buffer += `${jsonItem(s)}\n`;
      else buffer += `${first ? '\n' : ',\n'}${jsonItem(s)}`;
      first = false;
    }
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = '';
    }
    // A store that answers synchronously (SQLite) would otherwise keep this loop in microtasks while the client
    // keeps up: let the event loop serve other requests (ingest in embedded mode) between batches.
    await nextTurn();
  }
  if (format === 'json') buffer += first ? ']\n' : '\n]\n';
  if (buffer) yield buffer;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/**
 * Streams the form's submissions matching `filter` as a download. The rows are read from the store a batch at a
 * time as the client takes them (`Readable.from` pulls only when the socket drains), so memory stays flat at any
 * size. A failure before the first byte answers with the usual error; after it, the connection is cut (the client
 * sees a truncated download, never a complete-looking one).
 */
export async function sendExport(
  deps: { submissions: SubmissionReadModel; logger: Logger },
  res: Response,
  form: Form,
  filter: SubmissionFilter,
  format: ExportFormat,
): Promise<void> {
  const scope = { orgId: form.orgId };
  const columns =
    format === 'csv' ? (await deps.submissions.listFieldNames(scope, form.id)).slice(0, MAX_CSV_FIELD_COLUMNS) : [];
  const text = exportText(deps.submissions.exportSubmissions(scope, form.id, filter), format, columns);
  // The first chunk is read before anything is sent, so a store that cannot be read answers a clean error.
  const head = await text.next();
  const body = Readable.from(
    (async function* () {
      if (!head.done) yield head.value;
      yield* text;
    })(),
  );
  const name = form.slug.replace(/[^a-z0-9-]/gi, '-');
  res.status(200);
  res.setHeader('content-type', CONTENT_TYPES[format]);
  res.setHeader('content-disposition', `attachment; filename="${name}-submissions.${format}"`);
  res.setHeader('cache-control', 'private, no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  try {
    await pipeline(body, res);
  } catch (err) {
    if (!res.headersSent) throw err;
    deps.logger.warn({ formId: form.id, err: (err as Error).name }, 'submissions export cut short');
    res.destroy();
  }
}
