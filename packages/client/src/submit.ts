import { errorFromResponse, FormgateError, parseRetryAfter } from './errors.ts';

/**
 * What `submit` sends: a plain object goes as JSON (one field per key; nested values are stored as compact JSON
 * text), a `FormData` as `multipart/form-data` (repeated names and files kept), `URLSearchParams` urlencoded.
 */
export type SubmissionData = Record<string, unknown> | FormData | URLSearchParams;

/**
 * How files in a `FormData` travel: `'auto'` (the default) and `'direct'` upload them straight to storage before the
 * submission (see `SubmitOptions.uploads`); `'multipart'` sends everything in one `multipart/form-data` request.
 */
export type UploadMode = 'auto' | 'direct' | 'multipart';

export interface SubmitOptions {
  /**
   * Makes the submission's id a function of (form, key): a retry with the same key never stores twice. Default: a
   * new random UUID per `submit` call, reused by its own retries. 1–200 visible ASCII characters.
   */
  idempotencyKey?: string;
  /** Further attempts after a network error, 429, 503 or 504 (default 3). Never after another 4xx. */
  retries?: number;
  /**
   * The longest wait before a retry, in seconds (default 30). A `Retry-After` above it is not waited for: the error
   * is thrown at once, with its `retryAfterSeconds`.
   */
  maxRetryWaitSeconds?: number;
  /**
   * How a `FormData`'s files are sent. `'auto'` (default): when it holds a file with content, direct uploads — the
   * client asks the gateway where to put each file (`POST /f/{formKey}/uploads`), `PUT`s each file there (straight
   * to storage: an S3 presigned URL, or the gateway itself), then posts the other fields urlencoded with the uploads'
   * token (`_uploads`), all under the submission's one idempotency key; otherwise one request as usual. `'direct'`:
   * the same, whenever the `FormData` holds any file (an empty one with a name too). `'multipart'`: one
   * `multipart/form-data` request, files included. Each step is retried like the submission (an upload also after
   * any 5xx); empty file inputs (no name, no content) are left out of a direct submission.
   */
  uploads?: UploadMode;
  /** Aborts the request (every request of a direct upload) and any wait. */
  signal?: AbortSignal;
}

/** The public endpoint's success: the submission's id and where an HTML form would have gone next. */
export interface SubmitResult {
  id: string;
  next: string;
}

export interface SubmitTransport {
  baseUrl: string;
  fetch: typeof fetch;
}

/** Statuses a retry can help with: the limit passes, the log comes back, the gateway's upstream answers. */
const RETRYABLE_STATUS = new Set([429, 503, 504]);

/** A random UUID v4: `crypto.randomUUID` where the page is a secure context, else from `getRandomValues`. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const isPlainData = (data: SubmissionData): data is Record<string, unknown> =>
  !(data instanceof FormData) && !(data instanceof URLSearchParams);

/** When to try again, and how long to wait at most. */
interface RetryPolicy {
  retries: number;
  maxWaitMs: number;
  signal: AbortSignal | undefined;
  retryable: (status: number) => boolean;
}

/**
 * Runs `attempt` until it returns, retrying after network errors and the `FormgateError`s the policy calls
 * retryable, honouring `Retry-After` within `maxWaitMs`. An abort throws the signal's reason.
 */
async function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    let error: FormgateError;
    let waitMs: number;
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof FormgateError && !policy.retryable(err.status)) throw err;
      if (policy.signal?.aborted) throw policy.signal.reason;
      if (err instanceof FormgateError) {
        error = err;
        waitMs = (err.retryAfterSeconds ?? 1) * 1000;
      } else {
        // No answer (connection refused or reset, DNS): the request may or may not have arrived; the same key (or,
        // for an upload, the same object) makes the retry safe either way.
        error = new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: String(err), cause: err });
        waitMs = Math.min(500 * 2 ** n, 8_000) * (0.5 + Math.random() / 2);
      }
    }
    if (n >= policy.retries || waitMs > policy.maxWaitMs) throw error;
    await sleep(waitMs, policy.signal);
  }
}

/** A file of the submission, in the order of the `FormData`. */
interface PendingFile {
  field: string;
  filename: string;
  contentType: string;
  blob: Blob;
}

/** Where the gateway said to put one file. */
interface UploadTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** How many files are uploaded at once. */
const UPLOAD_CONCURRENCY = 3;

/** A `FormData` entry's value (`FormDataEntryValue`, which only the DOM library names). */
type EntryValue = Parameters<Parameters<FormData['forEach']>[0]>[0];

const isFile = (value: EntryValue): value is Exclude<EntryValue, string> => typeof value !== 'string';

/** What a browser sends for an untouched `<input type=file>`: a nameless, empty file. */
const isEmptyFileInput = (file: File) => file.size === 0 && !file.name;

/** The field naming the uploads' token in the submission itself. */
const UPLOADS_FIELD = '_uploads';

/** Whether `data` goes by direct uploads under `mode`. */
function wantsDirectUploads(data: SubmissionData, mode: UploadMode | undefined): data is FormData {
  if (mode === 'multipart' || !(data instanceof FormData)) return false;
  let found = false;
  data.forEach((value) => {
    if (!isFile(value)) return;
    if (mode === 'direct' ? !isEmptyFileInput(value) : value.size > 0) found = true;
  });
  return found;
}

const isAbsoluteUrl = (url: string) => /^[a-z][a-z\d+.-]*:/i.test(url);

/**
 * An upload URL as fetched: an absolute one (an S3 presigned URL) as is, a root-relative one on `baseUrl`'s origin
 * (as is when `baseUrl` itself is relative: a page's own origin).
 */
function uploadUrl(url: string, baseUrl: string): string {
  if (isAbsoluteUrl(url) || !isAbsoluteUrl(baseUrl)) return url;
  return url.startsWith('/') && !url.startsWith('//') ? new URL(baseUrl).origin + url : new URL(url, baseUrl).href;
}

const unexpected = (status: number, message: string) =>
  new FormgateError({ status, code: 'UNEXPECTED_RESPONSE', message });

/** The presign answer's `{uploads, files}`, checked: one target per file, in order. */
function readUploadPlan(
  status: number,
  answer: unknown,
  count: number,
  baseUrl: string,
): { token: string; targets: UploadTarget[] } {
  const a = (typeof answer === 'object' && answer !== null ? answer : {}) as { uploads?: unknown; files?: unknown };
  if (typeof a.uploads !== 'string' || a.uploads === '') throw unexpected(status, 'No uploads token');
  if (!Array.isArray(a.files) || a.files.length !== count) throw unexpected(status, `Expected ${count} upload targets`);
  const targets = a.files.map((f: unknown): UploadTarget => {
    const t = (typeof f === 'object' && f !== null ? f : {}) as { url?: unknown; method?: unknown; headers?: unknown };
    const headers = t.headers ?? {};
    if (
      typeof t.url !== 'string' ||
      t.url === '' ||
      typeof headers !== 'object' ||
      headers === null ||
      Object.values(headers).some((v) => typeof v !== 'string')
    ) {
      throw unexpected(status, 'An upload target has no url or bad headers');
    }
    return {
      url: uploadUrl(t.url, baseUrl),
      method: typeof t.method === 'string' && t.method !== '' ? t.method : 'PUT',
      headers: { ...(headers as Record<string, string>) },
    };
  });
  return { token: a.uploads, targets };
}

const xmlText = (xml: string, tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];

/**
 * The error a refused upload stands for: Formgate's own JSON error when the gateway answered, else (an S3 XML error,
 * a proxy's page) `UPLOAD_FAILED` with the status, naming the file and the storage's code and message when it gave
 * them.
 */
async function uploadError(res: Response, file: PendingFile): Promise<FormgateError> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = await errorFromResponse(new Response(text, { status: res.status, headers: res.headers }));
    if (parsed.code !== 'UNEXPECTED_RESPONSE') return parsed;
  } catch {
    // A status a Response cannot be built with: not Formgate's error either.
  }
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'));
  const storageCode = xmlText(text, 'Code');
  const storageMessage = xmlText(text, 'Message');
  const storageRequestId = xmlText(text, 'RequestId');
  const why = [storageCode, storageMessage].filter(Boolean).join(': ');
  return new FormgateError({
    status: res.status,
    code: 'UPLOAD_FAILED',
    message: `Upload of ${file.filename} (field ${file.field}) failed: HTTP ${res.status}${why ? ` ${why}` : ''}`,
    details: {
      field: file.field,
      filename: file.filename,
      ...(storageCode ? { storageCode } : {}),
      ...(storageMessage ? { storageMessage } : {}),
      ...(storageRequestId ? { storageRequestId } : {}),
    },
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}

/** `PUT`s the files to their targets, a few at a time; the first failure aborts the others. */
async function uploadAll(
  transport: SubmitTransport,
  files: PendingFile[],
  targets: UploadTarget[],
  policy: RetryPolicy,
): Promise<void> {
  const controller = new AbortController();
  const outer = policy.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  const inner: RetryPolicy = { ...policy, signal: controller.signal };
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const file = files[i] as PendingFile;
      const target = targets[i] as UploadTarget;
      // A typeless view of the same bytes: fetch would otherwise add the Blob's type as a Content-Type of its own,
      // and a presigned URL takes exactly the headers it was signed with.
      const body = file.blob.slice(0, file.blob.size);
      await withRetries(inner, async () => {
        const res = await transport.fetch(target.url, {
          method: target.method,
          headers: target.headers,
          body,
          signal: controller.signal,
        });
        if (!res.ok) throw await uploadError(res, file);
        await res.body?.cancel().catch(() => {});
      });
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(UPLOAD_CONCURRENCY, files.length) }, () =>
        worker().catch((err: unknown) => {
          controller.abort(err);
          throw err;
        }),
      ),
    );
  } finally {
    outer?.removeEventListener('abort', onAbort);
  }
}

/** Posts a request and reads the submission's `{id, next}`; a refusal throws its `FormgateError`. */
async function postSubmission(
  transport: SubmitTransport,
  url: string,
  headers: Record<string, string>,
  body: RequestInit['body'],
  signal: AbortSignal | undefined,
): Promise<SubmitResult> {
  const res = await transport.fetch(url, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });
  if (!res.ok) throw await errorFromResponse(res);
  const answer = (await res.json().catch(() => null)) as { id?: unknown; next?: unknown } | null;
  if (typeof answer?.id !== 'string') throw unexpected(res.status, 'No submission id');
  return { id: answer.id, next: typeof answer.next === 'string' ? answer.next : '' };
}

/**
 * `POST /f/{formKey}` with `Accept: application/json`, retried (with the same idempotency key) after network
 * errors, 429, 503 and 504, honouring `Retry-After` within `maxRetryWaitSeconds`. A `FormData` with files goes by
 * direct uploads unless `uploads: 'multipart'` (`SubmitOptions.uploads`). Throws a `FormgateError`; a refused
 * submission's problems are in its `details` (`issues`, `fieldErrors`).
 */
export async function submitTo(
  transport: SubmitTransport,
  formKey: string,
  data: SubmissionData,
  options: SubmitOptions = {},
): Promise<SubmitResult> {
  const policy: RetryPolicy = {
    retries: Math.max(0, options.retries ?? 3),
    maxWaitMs: Math.max(0, options.maxRetryWaitSeconds ?? 30) * 1000,
    signal: options.signal,
    retryable: (status) => RETRYABLE_STATUS.has(status),
  };
  const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
  const headers: Record<string, string> = { accept: 'application/json', 'idempotency-key': idempotencyKey };
  const baseUrl = transport.baseUrl.replace(/\/+$/, '');
  const url = `${baseUrl}/f/${encodeURIComponent(formKey)}`;

  if (wantsDirectUploads(data, options.uploads)) {
    const files: PendingFile[] = [];
    const fields = new URLSearchParams();
    data.forEach((value, name) => {
      if (!isFile(value)) {
        if (name !== UPLOADS_FIELD) fields.append(name, value);
      } else if (!isEmptyFileInput(value)) {
        files.push({
          field: name,
          filename: value.name || 'blob',
          contentType: value.type || 'application/octet-stream',
          blob: value,
        });
      }
    });
    const presign = JSON.stringify({
      files: files.map((f) => ({
        field: f.field,
        filename: f.filename,
        contentType: f.contentType,
        size: f.blob.size,
      })),
    });
    const plan = await withRetries(policy, async () => {
      const res = await transport.fetch(`${url}/uploads`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: presign,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!res.ok) throw await errorFromResponse(res);
      return readUploadPlan(res.status, await res.json().catch(() => null), files.length, baseUrl);
    });
    // Storage's and the upload handler's own failures (500, 502…) pass too: the same bytes to the same URL.
    await uploadAll(transport, files, plan.targets, { ...policy, retryable: (s) => s === 429 || s >= 500 });
    fields.append(UPLOADS_FIELD, plan.token);
    return withRetries(policy, () => postSubmission(transport, url, headers, fields, options.signal));
  }

  let body: RequestInit['body'];
  if (isPlainData(data)) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(data);
  } else {
    body = data; // fetch sets the multipart boundary or the urlencoded type itself
  }
  return withRetries(policy, () => postSubmission(transport, url, headers, body, options.signal));
}
