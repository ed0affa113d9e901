/**
 * A rejected submission. `code` is the stable, documented error code (Formspree's where one exists); `field`
 * names the offending field when there is one. Nothing was stored or published.
 */
export class IngestError extends Error {
  /** An allowed `_error` URL of the submission, when the body was parsed far enough to know it. */
  errorRedirect: string | null = null;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'IngestError';
  }
}

export const IngestErrors = {
  formNotFound: () => new IngestError(404, 'FORM_NOT_FOUND', 'Form not found'),
  formDeleted: () => new IngestError(410, 'FORM_DELETED', 'This form has been deleted'),
  inactive: () => new IngestError(403, 'INACTIVE', 'This form is disabled'),
  empty: () => new IngestError(422, 'EMPTY', 'The submission has no fields'),
  malformed: (message: string) => new IngestError(400, 'MALFORMED', message),
  unsupportedType: (type: string) =>
    new IngestError(
      415,
      'UNSUPPORTED_CONTENT_TYPE',
      `Content type ${type.slice(0, 100) || '(none)'} is not supported; use application/x-www-form-urlencoded, multipart/form-data or application/json`,
    ),
  unsupportedEncoding: () =>
    new IngestError(415, 'UNSUPPORTED_CONTENT_ENCODING', 'Content-Encoding must be gzip, deflate, br or identity'),
  unsupportedCharset: () => new IngestError(415, 'UNSUPPORTED_CHARSET', 'Only UTF-8 bodies are accepted'),
  tooLarge: (limit: number) => new IngestError(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes`),
  tooManyFields: (limit: number) => new IngestError(413, 'TOO_MANY_FIELDS', `More than ${limit} fields`),
  nameTooLong: (limit: number) =>
    new IngestError(400, 'FIELD_NAME_TOO_LONG', `A field name is longer than ${limit} characters`),
  valueTooLong: (field: string, limit: number) =>
    new IngestError(413, 'FIELD_VALUE_TOO_LONG', `The value of a field exceeds ${limit} bytes`, field),
  tooDeep: (limit: number) => new IngestError(400, 'JSON_TOO_DEEP', `JSON nested deeper than ${limit} levels`),
  invalidCharacter: (field: string) =>
    new IngestError(400, 'INVALID_CHARACTER', 'Field names and values may not contain NUL characters', field),
  tooManyFiles: (limit: number) => new IngestError(413, 'TOO_MANY_FILES', `More than ${limit} files`),
  fileTooBig: (field: string, limit: number) =>
    new IngestError(413, 'FILES_TOO_BIG', `A file exceeds ${limit} bytes`, field),
  tooManyParts: (limit: number) => new IngestError(413, 'TOO_MANY_PARTS', `More than ${limit} multipart parts`),
  badIdempotencyKey: (limit: number) =>
    new IngestError(400, 'INVALID_IDEMPOTENCY_KEY', `Idempotency-Key must be 1–${limit} visible ASCII characters`),
  unavailable: () =>
    new IngestError(503, 'UNAVAILABLE', 'Submissions cannot be accepted right now; retry shortly', undefined, 2),
  methodNotAllowed: () => new IngestError(405, 'METHOD_NOT_ALLOWED', 'Use POST to submit a form'),
};
