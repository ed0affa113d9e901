/**
 * Hard limits of the public endpoint. Every breach answers a documented 4xx (see `docs/ingest.md`) and stores
 * and publishes nothing.
 */
export interface IngestLimits {
  /** Decompressed body of a urlencoded or JSON submission. */
  maxBodyBytes: number;
  /** Decompressed body of a multipart submission, files included. */
  maxMultipartBytes: number;
  maxFields: number;
  maxFieldNameLength: number;
  /** Per value, in bytes (UTF-8). */
  maxFieldValueBytes: number;
  /** Nesting of JSON objects and arrays. */
  maxJsonDepth: number;
  maxFiles: number;
  maxFileBytes: number;
  /** Multipart parts (fields + files). */
  maxParts: number;
  maxPartHeaderPairs: number;
  maxIdempotencyKeyLength: number;
}

export const DEFAULT_LIMITS: IngestLimits = {
  maxBodyBytes: 256 * 1024,
  // The files' 100 MiB (`MAX_SUBMISSION_FILE_BYTES`), and room for the fields and the parts' headers.
  maxMultipartBytes: 101 * 1024 * 1024,
  maxFields: 200,
  maxFieldNameLength: 256,
  maxFieldValueBytes: 64 * 1024,
  maxJsonDepth: 8,
  maxFiles: 10,
  // Each form's and plan's own limits apply within it (`uploads/file-rules.ts`).
  maxFileBytes: 100 * 1024 * 1024,
  maxParts: 250,
  maxPartHeaderPairs: 50,
  maxIdempotencyKeyLength: 200,
};
