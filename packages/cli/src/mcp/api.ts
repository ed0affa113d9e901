import {
  createFormgateClient,
  type ExportFormat,
  FormgateError,
  type FormWithCountsDto,
  type ListEnvelope,
  type SubmissionDto,
  type SubmissionFilter,
  type SubmissionPageQuery,
} from '@formgate/client';
import { CliError } from '../http.ts';

/** What an organization API key may do: `read` keys only GET, `write` keys everything. */
export type KeyScope = 'read' | 'write';

/** What `export_submissions` offers: the export's formats an assistant reads as one text. */
export type TextExportFormat = Exclude<ExportFormat, 'ndjson'>;

/** An export as handed to the assistant: its text, and whether it was cut at `maxBytes`. */
export interface CappedExport {
  text: string;
  bytes: number;
  truncated: boolean;
}

/** A form as `list_forms` shows it: what an assistant needs to act on it, without its settings. */
export interface FormSummary {
  id: string;
  name: string;
  slug: string;
  endpoint: string;
  createdAt: string;
  submissionCount: number;
  spamCount: number;
  heldCount: number;
  blockedCount: number;
  lastSubmissionAt: string | null;
}

/**
 * The text of `stream` up to `maxBytes` of UTF-8 (never a split character); the rest is not read (the request is
 * cancelled). A byte order mark is dropped. A stream the server cut short (it cuts the connection when an export
 * fails midway) is an error, never a shorter export.
 */
async function readCapped(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<CappedExport> {
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let bytes = 0;
  let ended = false;
  try {
    while (true) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw new FormgateError({
          status: 0,
          code: 'NETWORK_ERROR',
          message: `The export was cut short before its end (${String(err)}); nothing of it is returned`,
          cause: err,
        });
      }
      if (chunk.done) {
        ended = true;
        return { text: text + decoder.decode(), bytes, truncated: false };
      }
      const room = maxBytes - bytes;
      if (chunk.value.byteLength > room) {
        // `stream: true` keeps a character cut at the limit back instead of decoding half of it.
        text += decoder.decode(chunk.value.subarray(0, room), { stream: true });
        return { text, bytes: maxBytes, truncated: true };
      }
      text += decoder.decode(chunk.value, { stream: true });
      bytes += chunk.value.byteLength;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** The end of the last whole CSV record in `text` (a line break outside quotes), or 0 when there is none. */
function lastCsvRecordEnd(text: string): number {
  let quoted = false;
  let end = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) end = i + 1;
  }
  return end;
}

/**
 * A cut export made whole again: CSV up to its last complete record; the JSON array (one submission per line, as
 * the API writes it) up to its last complete item, then closed, so it still parses.
 */
function wholeRecords(text: string, format: TextExportFormat): string {
  if (format === 'csv') return text.slice(0, lastCsvRecordEnd(text));
  const lines = text.split('\n').slice(0, -1);
  const items = lines
    .slice(1)
    .filter((line) => line !== ']')
    .map((line) => line.replace(/,$/, ''));
  return items.length ? `[\n${items.join(',\n')}\n]\n` : '[]\n';
}

/**
 * Formgate's public API as the MCP tools use it, through `@formgate/client` with one organization API key
 * (`X-Api-Key`) and nothing else; every failure is a `FormgateError`.
 */
export function createFormgateApi(options: { baseUrl: string; apiKey: string }) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = createFormgateClient({ baseUrl, apiKey: options.apiKey });

  return {
    baseUrl,

    async listForms(): Promise<FormSummary[]> {
      const forms: FormWithCountsDto[] = await client.forms.list();
      return forms.map((f) => ({
        id: f.id,
        name: f.name,
        slug: f.slug,
        endpoint: f.endpoint,
        createdAt: f.createdAt,
        submissionCount: f.submissionCount,
        spamCount: f.spamCount,
        heldCount: f.heldCount,
        blockedCount: f.blockedCount,
        lastSubmissionAt: f.lastSubmissionAt,
      }));
    },

    searchSubmissions(formId: string, query: SubmissionPageQuery): Promise<ListEnvelope<SubmissionDto>> {
      return client.submissions.page(formId, query);
    },

    getSubmission(formId: string, submissionId: string): Promise<SubmissionDto> {
      return client.submissions.get(formId, submissionId);
    },

    /** `PATCH /api/v1/forms/{formId}/submissions/{submissionId}` with `{spam}`: the submission as changed. */
    markSpam(formId: string, submissionId: string, spam: boolean): Promise<SubmissionDto> {
      return client.submissions.update(formId, submissionId, { spam });
    },

    /** The export route's text, read up to `maxBytes`; a cut export ends at its last whole record. */
    async exportSubmissions(
      formId: string,
      query: SubmissionFilter & { format: TextExportFormat },
      maxBytes: number,
    ): Promise<CappedExport> {
      const stream = await client.submissions.exportStream(formId, query);
      const read = await readCapped(stream, maxBytes);
      return read.truncated ? { ...read, text: wholeRecords(read.text, query.format) } : read;
    },

    /** `GET /api/v1/api-keys/current`: the key's scope, as the gateway holds it. */
    async scope(): Promise<KeyScope> {
      try {
        return (await client.apiKeys.current()).scope;
      } catch (err) {
        if (!(err instanceof FormgateError)) throw err;
        if (err.code === 'NETWORK_ERROR')
          throw new CliError(`Cannot reach Formgate at ${baseUrl}. Is it running, and is FORMGATE_URL right?`);
        if (err.status === 401)
          throw new CliError(`FORMGATE_API_KEY was refused by ${baseUrl} (${err.code}): is it a valid API key?`);
        throw new CliError(
          `Cannot learn the API key's scope from ${baseUrl}: ${err.status} ${err.code}: ${err.message}`,
        );
      }
    },
  };
}

export type FormgateApi = ReturnType<typeof createFormgateApi>;
