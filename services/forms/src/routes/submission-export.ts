import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Form, OrgScope } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Response } from 'express';
import { csvLine, MAX_CSV_FIELD_COLUMNS } from '../store/csv-lines.ts';
import type { StoredSubmission, SubmissionFilter } from '../store/records.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

export type ExportFormat = 'csv' | 'json' | 'ndjson';

/** Characters gathered before a chunk is handed to the response (fewer, larger writes). */
const CHUNK_CHARS = 64 * 1024;

const jsonItem = (s: StoredSubmission) =>
  JSON.stringify({
    id: s.id,
    createdAt: s.createdAt,
    spam: s.spam.isSpam,
    held: s.held,
    fields: s.fields,
    files: s.files,
  });

/** The export's text, in chunks of about `CHUNK_CHARS`: CSV from the store's lines, JSON from its records. */
async function* exportText(
  submissions: SubmissionReadModel,
  scope: OrgScope,
  formId: string,
  filter: SubmissionFilter,
  format: ExportFormat,
  columns: readonly string[],
): AsyncGenerator<string> {
  let buffer = '';
  async function* chunks(lines: AsyncIterable<string[]>, each: (line: string, first: boolean) => string) {
    let first = true;
    for await (const page of lines) {
      for (const line of page) {
        buffer += each(line, first);
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
    return first;
  }
  if (format === 'csv') {
    buffer = `\uFEFF${csvLine(['id', 'createdAt', 'spam', ...columns])}`;
    yield* chunks(submissions.exportCsvLines(scope, formId, filter, columns), (line) => line);
  } else {
    const items = async function* () {
      for await (const batch of submissions.exportSubmissions(scope, formId, filter)) yield batch.map(jsonItem);
    };
    if (format === 'json') buffer = '[';
    const none = yield* chunks(items(), (item, first) =>
      format === 'ndjson' ? `${item}\n` : `${first ? '\n' : ',\n'}${item}`,
    );
    if (format === 'json') buffer += none ? ']\n' : '\n]\n';
  }
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
  const text = exportText(deps.submissions, scope, form.id, filter, format, columns);
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
