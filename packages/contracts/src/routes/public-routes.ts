import { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import {
  AltchaChallengeSchema,
  IngestAcceptedSchema,
  TimeStampDtoSchema,
  UploadsGrantSchema,
  UploadsRequestSchema,
} from '../ingest.ts';
import { defineRoute, json, noContent } from './define-route.ts';

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
  'FILE_TYPE_NOT_ALLOWED',
  'FILE_TYPE_MISMATCH',
  'UPLOADS_INVALID',
  'UPLOAD_MISSING',
  'FILE_STORAGE_FULL',
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
  grantUploads: defineRoute({
    method: 'POST',
    path: '/f/:formKey/uploads',
    service: 'ingest',
    auth: 'public',
    tag: 'Public endpoint',
    summary: 'Where to upload the files of a submission directly (up to 100 MB in all)',
    description:
      'Checks the files against the form’s limits (count, size, types) and answers where to `PUT` each, with the ' +
      'headers to send, and the `_uploads` token the submission then carries. The `Idempotency-Key` (or a new one) ' +
      'is bound to the token: every submission naming it is the same submission. See docs/ingest.md.',
    request: { body: UploadsRequestSchema },
    responses: [json(201, 'Where to upload each file, and the token', UploadsGrantSchema)],
    errors: [
      ...FORM_STATE,
      'MALFORMED',
      'UNSUPPORTED_CONTENT_TYPE',
      'PAYLOAD_TOO_LARGE',
      'TOO_MANY_FILES',
      'FILES_TOO_BIG',
      'FILE_TYPE_NOT_ALLOWED',
      'FILE_STORAGE_FULL',
      'INVALID_IDEMPOTENCY_KEY',
      'BLOCKED',
      'RATE_LIMITED',
    ],
  }),
  putUpload: defineRoute({
    method: 'PUT',
    path: '/f/:formKey/uploads/:uploadId',
    service: 'ingest',
    auth: 'public',
    tag: 'Public endpoint',
    summary: 'Upload one file granted by `POST /f/{formKey}/uploads` (when files are not in an S3 bucket)',
    description:
      'The body is the file’s bytes, exactly the size granted, with the headers the grant gave; `token` comes with ' +
      'the grant’s URL. A retry replaces the file.',
    request: { query: z.object({ token: z.string() }) },
    responses: [noContent('Stored')],
    errors: [...FORM_STATE, 'UPLOADS_INVALID', 'MALFORMED', 'FILES_TOO_BIG', 'UNSUPPORTED_CONTENT_ENCODING'],
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
