import { errorFromResponse, FormgateError } from './errors.ts';

/**
 * What `submit` sends: a plain object goes as JSON (one field per key; nested values are stored as compact JSON
 * text), a `FormData` as `multipart/form-data` (repeated names and files kept), `URLSearchParams` urlencoded.
 */
export type SubmissionData = Record<string, unknown> | FormData | URLSearchParams;

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

/**
 * `POST /f/{formKey}` with `Accept: application/json`, retried (with the same idempotency key) after network
 * errors, 429, 503 and 504, honouring `Retry-After` within `maxRetryWaitSeconds`. Throws a `FormgateError`; a refused
 * submission's problems are in its `details` (`issues`, `fieldErrors`).
 */
export async function submitTo(
  transport: SubmitTransport,
  formKey: string,
  data: SubmissionData,
  options: SubmitOptions = {},
): Promise<SubmitResult> {
  const retries = Math.max(0, options.retries ?? 3);
  const maxWaitMs = Math.max(0, options.maxRetryWaitSeconds ?? 30) * 1000;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'idempotency-key': options.idempotencyKey ?? newIdempotencyKey(),
  };
  let body: RequestInit['body'];
  if (isPlainData(data)) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(data);
  } else {
    body = data; // fetch sets the multipart boundary or the urlencoded type itself
  }
  const url = `${transport.baseUrl.replace(/\/+$/, '')}/f/${encodeURIComponent(formKey)}`;
  for (let attempt = 0; ; attempt++) {
    let error: FormgateError;
    let waitMs: number;
    try {
      const res = await transport.fetch(url, {
        method: 'POST',
        headers,
        body,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (res.ok) {
        const answer = (await res.json().catch(() => null)) as { id?: unknown; next?: unknown } | null;
        if (typeof answer?.id !== 'string') {
          throw new FormgateError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'No submission id' });
        }
        return { id: answer.id, next: typeof answer.next === 'string' ? answer.next : '' };
      }
      error = await errorFromResponse(res);
      if (!RETRYABLE_STATUS.has(res.status)) throw error;
      waitMs = (error.retryAfterSeconds ?? 1) * 1000;
    } catch (err) {
      if (err instanceof FormgateError && !RETRYABLE_STATUS.has(err.status)) throw err;
      if (options.signal?.aborted) throw options.signal.reason;
      if (err instanceof FormgateError) {
        error = err;
        waitMs = (err.retryAfterSeconds ?? 1) * 1000;
      } else {
        // No answer (connection refused or reset, DNS): the submission may or may not have arrived; the same key
        // makes the retry safe either way.
        error = new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: String(err), cause: err });
        waitMs = Math.min(500 * 2 ** attempt, 8_000) * (0.5 + Math.random() / 2);
      }
    }
    if (attempt >= retries || waitMs > maxWaitMs) throw error;
    await sleep(waitMs, options.signal);
  }
}
