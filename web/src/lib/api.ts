import { SSO_REQUIRED_MESSAGE, TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';

/**
 * The one fetch wrapper of the dashboard. A failed response becomes an `ApiError` carrying the status, the status
 * text and the JSON body's fields (Formgate's `{ error: { code, message, requestId } }`, better-auth's
 * `{ code, message }`); a network failure becomes an error response (status 0), so callers handle one kind of error.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly statusText: string;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  /** The decoded JSON body, whatever its shape; `undefined` when the body was not JSON. */
  readonly body: unknown;

  constructor(init: { status: number; statusText: string; body?: unknown }) {
    const fields = bodyFields(init.body);
    super(fields.message ?? (init.statusText || `Request failed with status ${init.status}`));
    this.name = 'ApiError';
    this.status = init.status;
    this.statusText = init.statusText;
    this.code = fields.code;
    this.requestId = fields.requestId;
    this.body = init.body;
  }
}

interface BodyFields {
  code?: string;
  message?: string;
  requestId?: string;
}

function bodyFields(body: unknown): BodyFields {
  if (!body || typeof body !== 'object') return {};
  const record = body as Record<string, unknown>;
  const inner = record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : record;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { code: str(inner.code), message: str(inner.message) ?? str(record.error), requestId: str(inner.requestId) };
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;

/** Builds the error for a response that is not OK (also used for better-auth's client errors). */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return new ApiError({ status: response.status, statusText: response.statusText, body });
}

let apiBaseUrl = '';

/**
 * Where `/api/...` paths are sent: the page's own origin (the default, a relative path) or, in component tests, the
 * local HTTP server answering for the API.
 */
export function setApiBaseUrl(url: string) {
  apiBaseUrl = url.replace(/\/+$/, '');
}

async function send(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input.startsWith('/') ? apiBaseUrl + input : input, { credentials: 'include', ...init });
  } catch {
    // What a browser hands back for a network failure: an "error" response, status 0.
    return Response.error();
  }
}

export interface ApiRequest extends Omit<RequestInit, 'body'> {
  /** Sent as JSON (the gateway refuses other bodies on session mutations). */
  json?: unknown;
  body?: BodyInit;
}

/** Calls the product's own API; resolves the decoded JSON (or `undefined` for 204), rejects with `ApiError`. */
export async function apiFetch<T>(path: string, request: ApiRequest = {}): Promise<T> {
  const { json, headers, ...rest } = request;
  const init: RequestInit = { ...rest, headers: { accept: 'application/json', ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  const response = await send(path, init);
  if (response.type === 'error') throw new ApiError({ status: 0, statusText: 'Network error' });
  if (!response.ok) throw await errorFromResponse(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/**
 * Downloads an attachment from the API (an export): the body as a `Blob` and the file name of its
 * `Content-Disposition`, or rejects with `ApiError` like `apiFetch` (so a failure toasts instead of opening a page).
 */
export async function apiDownload(path: string): Promise<{ blob: Blob; filename: string | null }> {
  const response = await send(path, { headers: { accept: '*/*' } });
  if (response.type === 'error') throw new ApiError({ status: 0, statusText: 'Network error' });
  if (!response.ok) throw await errorFromResponse(response);
  return { blob: await response.blob(), filename: filenameOf(response.headers.get('content-disposition')) };
}

/** The plain `filename="…"` of a `Content-Disposition` header (the server sends an ASCII one), or null. */
export function filenameOf(disposition: string | null): string | null {
  const match = disposition?.match(/filename="([^"]+)"/);
  return match?.[1] ?? null;
}

/** What a person reads about an error in a toast. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return 'Cannot reach the server. Check your connection and try again.';
    if (err.code === 'TWO_FACTOR_REQUIRED') return TWO_FACTOR_REQUIRED_MESSAGE;
    if (err.code === 'SSO_REQUIRED') return SSO_REQUIRED_MESSAGE;
    return err.message;
  }
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong';
}
