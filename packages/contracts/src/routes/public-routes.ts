import type { ErrorCode } from '../errors.ts';
import { AltchaChallengeSchema, IngestAcceptedSchema, TimeStampDtoSchema } from '../ingest.ts';
import { defineRoute, json } from './define-route.ts';

export const INGEST_ERROR_CODES: ErrorCode[] = [
  'FORM_NOT_FOUND',
  'FORM_DELETED',
  'INACTIVE',
  'EMPTY',
  'MALFORMED',
  'INVALID_REFERER',
  'UNSUPPORTED_CONTENT_TYPE',
  'UNSUPPORTED_CONTENT_ENCODING',
  'UNSUPPORTED_CHARSET',
  'TOO_MANY_FIELDS',
  'FIELD_NAME_TOO_LONG',
  'FIELD_VALUE_TOO_LONG',
  'JSON_TOO_DEEP',
  'INVALID_CHARACTER',
  'TOO_MANY_FILES',
  'FILES_TOO_BIG',
  'TOO_MANY_PARTS',
  'PAYLOAD_TOO_LARGE',
  'METHOD_NOT_ALLOWED',
  'BLOCKED',
  'RATE_LIMITED',
  'INVALID_IDEMPOTENCY_KEY',
  'UNAVAILABLE',
];

const FORM_STATE: ErrorCode[] = ['FORM_NOT_FOUND', 'FORM_DELETED', 'INACTIVE', 'METHOD_NOT_ALLOWED', 'UNAVAILABLE'];

/**
 * The public endpoint (`docs/ingest.md`): answered by ingest, which parses its bodies itself (urlencoded, multipart,
 * JSON), and reached through the gateway's fast path, outside the API's route matching. Errors in Formspree's format.
 */
export const publicRoutes = {
  submitForm: defineRoute({
    method: 'POST',
    path: '/f/:formKey',
    service: 'ingest',
    auth: 'public',
    tag: 'Public endpoint',
    summary: 'Submit to a form (urlencoded, multipart with files, or JSON)',
    description:
      'JSON answers for `Accept: application/json` or `X-Requested-With`; an HTML form gets `303` redirects (to ' +
      '`_next`, the redirect URL or the thank-you page; errors to `_error?error=CODE`) or a small HTML page. A 2xx ' +
      'or 303 means the submission is durably in the log. CORS is open; cookies are ignored. See docs/ingest.md.',
    responses: [
      json(200, 'Accepted (JSON clients)', IngestAcceptedSchema),
      { status: 303, description: 'Accepted, or refused with an `_error` URL (HTML forms)', redirect: true },
    ],
    errors: INGEST_ERROR_CODES,
  }),
  getAltchaChallenge: defineRoute({
    method: 'GET',
    path: '/f/:formKey/altcha',
    service: 'ingest',
    auth: 'public',
    tag: 'Public endpoint',
    summary: 'An ALTCHA challenge for the form',
    responses: [json(200, 'The challenge', AltchaChallengeSchema)],
    errors: FORM_STATE,
  }),
  getTimeTrapStamp: defineRoute({
    method: 'GET',
    path: '/f/:formKey/timestamp',
    service: 'ingest',
    auth: 'public',
    tag: 'Public endpoint',
    summary: "A signed render timestamp for the time-trap's field",
    responses: [json(200, 'The field and its value', TimeStampDtoSchema)],
    errors: FORM_STATE,
  }),
};
