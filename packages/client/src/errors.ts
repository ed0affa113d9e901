/**
 * One problem of a refused submission, as the public endpoint reports it (`errors[]` of its JSON answer):
 * `field` names the offending field when there is one (docs/ingest.md).
 */
export interface SubmissionIssue {
  code: string;
  message: string;
  field?: string;
}

/**
 * Codes the client itself raises, beside the API's own (`packages/contracts/src/errors.ts`): `NETWORK_ERROR` when no
 * answer came (status 0), `UNEXPECTED_RESPONSE` when an answer was not Formgate's (a proxy's HTML page, say),
 * `UPLOAD_FAILED` when storage refused a direct upload without a Formgate error (an S3 XML error: its status, and
 * `details` `{field, filename, storageCode?, storageMessage?, storageRequestId?}`).
 */
export type ClientErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE' | 'UPLOAD_FAILED';

export interface FormgateErrorInit {
  status: number;
  code: string;
  message: string;
  details?: unknown;
  requestId?: string;
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * Every failure the client reports: the API's `{error: {code, message, requestId, details}}`, the public
 * endpoint's `{error, errors: [{code, message, field}]}` (then `details` is that `errors` list), better-auth's
 * `{code, message}`, or a client-side `NETWORK_ERROR` / `UNEXPECTED_RESPONSE`.
 */
export class FormgateError extends Error {
  override readonly name = 'FormgateError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly requestId: string | undefined;
  /** The answer's `Retry-After`, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: FormgateErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The problems of a refused submission (the public endpoint's `errors`), else none. */
  get issues(): SubmissionIssue[] {
    return Array.isArray(this.details) ? this.details.filter(isIssue) : [];
  }

  /** The problems that name a field, by field name. */
  get fieldErrors(): Record<string, SubmissionIssue[]> {
    const byField: Record<string, SubmissionIssue[]> = {};
    for (const issue of this.issues) {
      if (issue.field === undefined) continue;
      byField[issue.field] = [...(byField[issue.field] ?? []), issue];
    }
    return byField;
  }
}

const isIssue = (x: unknown): x is SubmissionIssue =>
  typeof x === 'object' && x !== null && typeof (x as SubmissionIssue).code === 'string';

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const text = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** The error an unsuccessful answer stands for, whatever of Formgate's three error bodies it carries. */
export async function errorFromResponse(res: Response): Promise<FormgateError> {
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'));
  const base = { status: res.status, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return new FormgateError({ ...base, code: 'UNEXPECTED_RESPONSE', message: `HTTP ${res.status}` });
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  // The API: { error: { code, message, requestId, details? } }
  if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as Record<string, unknown>;
    return new FormgateError({
      ...base,
      code: text(e.code) ?? 'UNEXPECTED_RESPONSE',
      message: text(e.message) ?? `HTTP ${res.status}`,
      details: e.details,
      ...(text(e.requestId) ? { requestId: text(e.requestId) } : {}),
    });
  }
  // The public endpoint (Formspree's format): { error: "message", errors: [{ code, message, field? }] }
  if (Array.isArray(b.errors)) {
    const first = b.errors.find(isIssue);
    return new FormgateError({
      ...base,
      code: first?.code ?? 'UNEXPECTED_RESPONSE',
      message: text(b.error) ?? first?.message ?? `HTTP ${res.status}`,
      details: b.errors,
    });
  }
  // better-auth: { code, message }
  if (typeof b.code === 'string') {
    return new FormgateError({ ...base, code: b.code, message: text(b.message) ?? `HTTP ${res.status}` });
  }
  return new FormgateError({ ...base, code: 'UNEXPECTED_RESPONSE', message: `HTTP ${res.status}` });
}
