import { z } from 'zod';

/**
 * The public endpoint's answers (`/f/{formKey}`, `docs/ingest.md`), for JSON clients. Errors use Formspree's format,
 * not the API's envelope: sites parse them.
 */
export const IngestAcceptedSchema = z.object({
  ok: z.literal(true),
  /** Where an HTML form would have been redirected. */
  next: z.string(),
  /** The submission's id (the same for a retry with the same `Idempotency-Key`). */
  id: z.string(),
});
export type IngestAccepted = z.infer<typeof IngestAcceptedSchema>;

export const IngestErrorBodySchema = z.object({
  error: z.string(),
  errors: z.array(z.object({ code: z.string(), message: z.string(), field: z.string().optional() })),
});
export type IngestErrorBody = z.infer<typeof IngestErrorBodySchema>;

/** `GET /f/{formKey}/timestamp`: the time-trap's signed render timestamp, to send as the field `field`. */
export const TimeStampDtoSchema = z.object({ field: z.string(), value: z.string() });
export type TimeStampDto = z.infer<typeof TimeStampDtoSchema>;

/** An ALTCHA v2 challenge's parameters, all signed: unknown ones stay, for the signature check to refuse them. */
export const AltchaChallengeParametersSchema = z
  .object({
    algorithm: z.string(),
    nonce: z.string().max(256),
    salt: z.string().max(256),
    cost: z.number(),
    keyLength: z.number(),
    keyPrefix: z.string().max(256),
    keySignature: z.string().max(256).optional(),
    expiresAt: z.number().optional(),
  })
  .catchall(z.unknown());

/** `GET /f/{formKey}/altcha`: an ALTCHA challenge (the widget's `challengeurl` answer), and the payload's `challenge`. */
export const AltchaChallengeSchema = z.object({
  parameters: AltchaChallengeParametersSchema,
  signature: z.string().max(256),
});

/** The most bytes of files one submission may carry, whichever way they come (multipart or direct uploads). */
export const MAX_SUBMISSION_FILE_BYTES = 100 * 1024 * 1024;
/** How long a direct upload's PUT URL is valid. */
export const UPLOAD_URL_TTL_SECONDS = 60 * 60;
/**
 * How long a direct upload may wait for its submission (`_uploads` valid); an upload never attached is deleted
 * some time after (the stray sweep, `docs/ingest.md`).
 */
export const UPLOAD_TTL_SECONDS = 24 * 60 * 60;
/** The reserved field a submission names its direct uploads by (the token `POST /f/{key}/uploads` answered). */
export const UPLOADS_FIELD = '_uploads';

/** A MIME type as a form's settings and an upload request name it (`type/subtype`, lower case, no parameters). */
export const MimeTypeSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/,
    'a MIME type such as application/pdf',
  )
  .toLowerCase();

/** `POST /f/{formKey}/uploads`: the files a submission will carry, uploaded directly to storage first. */
export const UploadsRequestSchema = z.object({
  files: z
    .array(
      z.object({
        field: z.string().min(1).max(256),
        filename: z.string().min(1).max(255),
        contentType: MimeTypeSchema,
        size: z.number().int().min(0).max(MAX_SUBMISSION_FILE_BYTES),
      }),
    )
    .min(1),
});
export type UploadsRequest = z.infer<typeof UploadsRequestSchema>;

/**
 * Its answer (201): where to `PUT` each file (in the request's order) with exactly the headers given, and the token
 * the submission sends as `_uploads` (with the same `Idempotency-Key`, if it had one).
 */
export const UploadsGrantSchema = z.object({
  uploads: z.string(),
  expiresAt: z.string(),
  files: z.array(
    z.object({
      field: z.string(),
      url: z.string(),
      method: z.literal('PUT'),
      headers: z.record(z.string(), z.string()),
    }),
  ),
});
export type UploadsGrant = z.infer<typeof UploadsGrantSchema>;
