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
