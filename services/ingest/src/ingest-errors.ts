import { AppError } from '@formgate/kit';

/**
 * The public endpoint's rejections, with the limit that was crossed in the message. Each is an `AppError` with a
 * registered code (`packages/contracts/src/errors.ts`); `field` names the offending field when there is one.
 * Nothing was stored or published.
 */
export const IngestErrors = {
  formNotFound: () => new AppError('FORM_NOT_FOUND'),
  formDeleted: () => new AppError('FORM_DELETED'),
  inactive: () => new AppError('INACTIVE'),
  empty: () => new AppError('EMPTY'),
  malformed: (message: string) => new AppError('MALFORMED', message),
  invalidReferer: () => new AppError('INVALID_REFERER'),
  unsupportedType: (type: string) =>
    new AppError(
      'UNSUPPORTED_CONTENT_TYPE',
      `Content type ${type.slice(0, 100) || '(none)'} is not supported; use application/x-www-form-urlencoded, multipart/form-data or application/json`,
    ),
  unsupportedEncoding: () => new AppError('UNSUPPORTED_CONTENT_ENCODING'),
  unsupportedCharset: () => new AppError('UNSUPPORTED_CHARSET'),
  tooLarge: (limit: number) => new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes`),
  tooManyFields: (limit: number) => new AppError('TOO_MANY_FIELDS', `More than ${limit} fields`),
  nameTooLong: (limit: number) =>
    new AppError('FIELD_NAME_TOO_LONG', `A field name is longer than ${limit} characters`),
  valueTooLong: (field: string, limit: number) =>
    new AppError('FIELD_VALUE_TOO_LONG', `The value of a field exceeds ${limit} bytes`, { field }),
  tooDeep: (limit: number) => new AppError('JSON_TOO_DEEP', `JSON nested deeper than ${limit} levels`),
  invalidCharacter: (field: string) => new AppError('INVALID_CHARACTER', undefined, { field }),
  tooManyFiles: (limit: number) => new AppError('TOO_MANY_FILES', `More than ${limit} files`),
  fileTooBig: (field: string, limit: number) =>
    new AppError('FILES_TOO_BIG', `A file exceeds ${limit} bytes`, { field }),
  typeNotAllowed: (field: string) => new AppError('FILE_TYPE_NOT_ALLOWED', undefined, { field }),
  typeMismatch: (field: string) => new AppError('FILE_TYPE_MISMATCH', undefined, { field }),
  uploadsInvalid: () => new AppError('UPLOADS_INVALID'),
  uploadMissing: (field: string) => new AppError('UPLOAD_MISSING', undefined, { field }),
  storageFull: () => new AppError('FILE_STORAGE_FULL'),
  tooManyParts: (limit: number) => new AppError('TOO_MANY_PARTS', `More than ${limit} multipart parts`),
  badIdempotencyKey: (limit: number) =>
    new AppError('INVALID_IDEMPOTENCY_KEY', `Idempotency-Key must be 1–${limit} visible ASCII characters`),
  unavailable: (cause?: unknown) => new AppError('UNAVAILABLE', undefined, { cause }),
  methodNotAllowed: (use = 'Use POST to submit a form') => new AppError('METHOD_NOT_ALLOWED', use),
};
