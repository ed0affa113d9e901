import { SSO_REQUIRED_MESSAGE, TWO_FACTOR_REQUIRED_MESSAGE } from './auth.ts';

/**
 * Every error code Formgate answers with, in one registry: its HTTP status, whether trying again can help, and its
 * default message. Codes of the public endpoint (`/f/{key}`) are Formspree's where one exists and keep their names
 * (sites parse them); the API's are UPPER_SNAKE, prefixed by their owner when only one service raises them.
 * `docs/api.md` and `docs/ingest.md` list them all (a unit test keeps them in step).
 */
interface ErrorSpec {
  status: number;
  message: string;
  /** A later attempt may succeed (infrastructure, limits); the bus retries such failures without limit. */
  retryable?: boolean;
  /** Sent as `Retry-After` when set. */
  retryAfterSeconds?: number;
}

const define = <T extends Record<string, ErrorSpec>>(codes: T) => codes;

/** Any edge: the API's error envelope `{ error: { code, message, requestId } }`. */
const COMMON = define({
  VALIDATION_FAILED: { status: 400, message: 'Invalid request' },
  MALFORMED_JSON: { status: 400, message: 'Malformed JSON body' },
  MALFORMED_PATH: { status: 400, message: 'The path is not valid percent-encoding' },
  MALFORMED_REQUEST: { status: 400, message: 'The request headers cannot be forwarded' },
  INVALID_CURSOR: { status: 400, message: 'The cursor is not valid' },
  UNAUTHENTICATED: { status: 401, message: 'Authentication required' },
  FORBIDDEN: { status: 403, message: 'Not authorized' },
  CSRF_REJECTED: { status: 403, message: 'Cross-site request refused' },
  NO_ACTIVE_ORGANIZATION: { status: 403, message: 'Create or choose an organization first' },
  /** A dashboard session of a member without two-factor, in an organization that requires it (API keys unaffected). */
  TWO_FACTOR_REQUIRED: {
    status: 403,
    message: TWO_FACTOR_REQUIRED_MESSAGE,
  },
  /**
   * A dashboard session that did not come through the organization's identity provider, in an organization that
   * requires single sign-on (owners and API keys unaffected).
   */
  SSO_REQUIRED: { status: 403, message: SSO_REQUIRED_MESSAGE },
  /** Raised by forms (creating a form) and accounts (inviting a member): `details: {limit, max}` (issue 13). */
  PLAN_LIMIT_REACHED: { status: 403, message: "The organization's plan allows no more of these; upgrade the plan" },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send a JSON body with Content-Type: application/json' },
  RATE_LIMITED: { status: 429, message: 'Too many requests, retry later', retryable: true, retryAfterSeconds: 60 },
  INTERNAL: { status: 500, message: 'Internal error' },
  UPSTREAM_UNAVAILABLE: {
    status: 503,
    message: 'Service unavailable, retry shortly',
    retryable: true,
    retryAfterSeconds: 2,
  },
  UPSTREAM_TIMEOUT: { status: 504, message: 'The service did not answer in time', retryable: true },
  STORE_UNAVAILABLE: {
    status: 503,
    message: 'The service cannot reach its database right now; retry shortly',
    retryable: true,
    retryAfterSeconds: 2,
  },
});

/** The gateway's accounts (better-auth's own errors keep better-auth's codes). */
const ACCOUNTS = define({
  INVALID_EMAIL: { status: 400, message: 'Not an email address' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  /** `/api/auth/subscription/*` (the stripe plugin): a member who is not an owner or admin, or not a member at all. */
  BILLING_NOT_ALLOWED: { status: 403, message: 'Only owners and admins of the organization can manage its billing' },
  AUTH_UNAVAILABLE: {
    status: 503,
    message: 'Credentials cannot be checked right now; retry shortly',
    retryable: true,
    retryAfterSeconds: 2,
  },
});

const FORMS = define({
  FORMS_FORM_NOT_FOUND: { status: 404, message: 'Form not found' },
  FORMS_SUBMISSION_NOT_FOUND: { status: 404, message: 'Submission not found' },
  FORMS_SLUG_TAKEN: { status: 409, message: 'The slug is already used' },
  FORMS_CONCURRENT_UPDATE: { status: 409, message: 'The form changed while updating; retry', retryable: true },
  FORMS_INVALID_SEARCH: {
    status: 400,
    message: 'q must hold 1–8 words of at most 64 letters or digits, 200 characters in all',
  },
  FORMS_FILE_NOT_FOUND: { status: 404, message: 'File not found' },
  FORMS_FILE_LINK_INVALID: { status: 403, message: 'The file link is invalid or has expired' },
  FORMS_FILE_SCAN_PENDING: {
    status: 409,
    message: 'The file is being scanned for malware; retry shortly',
    retryable: true,
    retryAfterSeconds: 5,
  },
  FORMS_FILE_QUARANTINED: {
    status: 403,
    message: 'The file was quarantined by the malware scan and cannot be downloaded',
  },
  FORMS_ERASURE_NOT_FOUND: { status: 404, message: 'Erasure not found' },
  FORMS_NOTHING_TO_EXPORT: {
    status: 409,
    message: 'This form keeps no submission content, so there is nothing to export',
  },
});

const ORGS = define({
  ORG_NOT_FOUND: { status: 404, message: 'Organization not found' },
  /** Two changes of the organization's spam defaults at once (issue 14): this one lost three times. */
  ORG_CONCURRENT_UPDATE: {
    status: 409,
    message: 'The organization’s settings changed while updating; retry',
    retryable: true,
  },
  FLAG_NOT_FOUND: { status: 404, message: 'Flag not found' },
  /** Two appends to one organization's audit chain at once (two instances during a rebalance): the loser retries. */
  ORG_AUDIT_CONTENDED: {
    status: 409,
    message: 'The audit log moved on while this entry was appended; retry',
    retryable: true,
  },
});

/** Notification addresses (`/api/v1/notification-emails`). */
const NOTIFICATION_EMAILS = define({
  NOTIFICATIONS_EMAIL_NOT_FOUND: { status: 404, message: 'Notification email not found' },
  NOTIFICATIONS_EMAIL_ALREADY_VERIFIED: { status: 409, message: 'This address is already verified' },
  NOTIFICATIONS_EMAIL_LIMIT_REACHED: {
    status: 409,
    message: 'The organization has the most notification emails allowed; remove one first',
  },
  NOTIFICATIONS_VERIFICATION_RECENTLY_SENT: {
    status: 429,
    message: 'A verification email was sent to this address recently; try again later',
    retryable: true,
    retryAfterSeconds: 60,
  },
  NOTIFICATIONS_MAIL_UNAVAILABLE: {
    status: 503,
    message: 'The verification email could not be sent; try again in a minute',
    retryable: true,
    retryAfterSeconds: 60,
  },
});

/** Deliveries of notifications (`…/deliveries`). */
const NOTIFICATIONS = define({
  NOTIFICATIONS_DELIVERY_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  NOTIFICATIONS_SUBMISSION_GONE: {
    status: 410,
    message: 'The submission was deleted: its notifications cannot be sent again',
  },
  NOTIFICATIONS_RECIPIENT_NOT_VERIFIED: {
    status: 409,
    message: 'The address is no longer a verified notification address of the organization',
  },
});

/** Webhook endpoints of a form (`…/webhooks`). */
const WEBHOOKS = define({
  NOTIFICATIONS_WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  /** Two changes (or secret rotations) of one endpoint at once: this one lost; the other is stored whole. */
  NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE: {
    status: 409,
    message: 'The webhook endpoint changed while updating; retry',
    retryable: true,
  },
  NOTIFICATIONS_WEBHOOK_LIMIT_REACHED: {
    status: 409,
    message: 'The form has the most webhook endpoints allowed (10); remove one first',
  },
  NOTIFICATIONS_WEBHOOK_URL_INVALID: {
    status: 422,
    message: 'The URL must be an http(s) URL of at most 2,000 characters',
  },
  NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN: {
    status: 422,
    message: 'Webhooks cannot be sent to localhost, loopback or private addresses',
  },
  NOTIFICATIONS_WEBHOOK_DISABLED: {
    status: 409,
    message: 'The webhook endpoint is disabled; enable it first',
  },
  /** `GET /api/v1/events`: the organization has `MAX_EVENT_STREAMS_PER_ORG` streams open on this instance. */
  NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED: {
    status: 429,
    message: 'The organization has the most event streams open (5); close one first',
    retryable: true,
    retryAfterSeconds: 15,
  },
});

/** The public endpoint, in Formspree's format `{ error, errors: [{ code, message, field? }] }` (`docs/ingest.md`). */
const INGEST = define({
  FORM_NOT_FOUND: { status: 404, message: 'Form not found' },
  FORM_DELETED: { status: 410, message: 'This form has been deleted' },
  INACTIVE: { status: 403, message: 'This form is disabled' },
  EMPTY: { status: 422, message: 'The submission has no fields' },
  MALFORMED: { status: 400, message: 'The body could not be parsed' },
  INVALID_REFERER: { status: 400, message: 'The referer parameter must be a URL' },
  UNSUPPORTED_CONTENT_TYPE: {
    status: 415,
    message: 'Use application/x-www-form-urlencoded, multipart/form-data or application/json',
  },
  UNSUPPORTED_CONTENT_ENCODING: { status: 415, message: 'Content-Encoding must be gzip, deflate, br or identity' },
  UNSUPPORTED_CHARSET: { status: 415, message: 'Only UTF-8 bodies are accepted' },
  TOO_MANY_FIELDS: { status: 413, message: 'Too many fields' },
  FIELD_NAME_TOO_LONG: { status: 400, message: 'A field name is too long' },
  FIELD_VALUE_TOO_LONG: { status: 413, message: 'The value of a field is too long' },
  JSON_TOO_DEEP: { status: 400, message: 'JSON nested too deeply' },
  INVALID_CHARACTER: { status: 400, message: 'Field names and values may not contain NUL characters' },
  TOO_MANY_FILES: { status: 413, message: 'Too many files' },
  FILES_TOO_BIG: { status: 413, message: 'A file is too big' },
  FILE_TYPE_NOT_ALLOWED: { status: 415, message: 'This form does not take files of this type' },
  FILE_TYPE_MISMATCH: { status: 400, message: 'The file is not of the type it was sent as' },
  UPLOADS_INVALID: { status: 400, message: 'The _uploads token is not valid for this form, or has expired' },
  UPLOAD_MISSING: { status: 400, message: 'A file was not uploaded completely before the submission' },
  /** The form's organization has used its plan's file storage (issue 33): submissions without files still go in. */
  FILE_STORAGE_FULL: { status: 413, message: 'This form takes no more files: its file storage is full' },
  TOO_MANY_PARTS: { status: 413, message: 'Too many multipart parts' },
  /** A spam layer refused the request (issue 14): `details: {layer, rule}`; nothing was stored. */
  BLOCKED: { status: 403, message: 'The submission was refused by the form’s spam protection' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, message: 'Idempotency-Key must be 1–200 visible ASCII characters' },
  UNAVAILABLE: {
    status: 503,
    message: 'Submissions cannot be accepted right now; retry shortly',
    retryable: true,
    retryAfterSeconds: 2,
  },
});

/** Failures of consumers that are not HTTP answers: they decide what the bus does with a message. */
const EVENTS = define({
  EVENT_INVALID: { status: 422, message: 'The event does not match its schema' },
});

export const ERROR_CODES = {
  ...COMMON,
  ...ACCOUNTS,
  ...FORMS,
  ...ORGS,
  ...NOTIFICATION_EMAILS,
  ...NOTIFICATIONS,
  ...WEBHOOKS,
  ...INGEST,
  ...EVENTS,
};
export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);

export interface AppErrorOptions {
  /** The field of a submission or request the error is about. */
  field?: string;
  /** Structured details for the client (validation issues); never internal state. */
  details?: unknown;
  cause?: unknown;
  /** A retryable error's `Retry-After` when it is known exactly (a rate limit's wait); the code's default otherwise. */
  retryAfterSeconds?: number;
}

/**
 * The one error type: a registered code, and a message for people (the code's default unless a more specific one
 * is given). Thrown anywhere; turned into an answer exactly once at each edge (the API's error handler, the public
 * endpoint's `sendError`, the gateway's proxy), and read by the bus to decide between retrying and dead-lettering.
 */
export class AppError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly field: string | undefined;
  readonly details: unknown;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    options: AppErrorOptions = {},
  ) {
    const spec: ErrorSpec = ERROR_CODES[code];
    super(message ?? spec.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = spec.status;
    this.retryable = spec.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds ?? spec.retryAfterSeconds;
    this.field = options.field;
    this.details = options.details;
  }
}
