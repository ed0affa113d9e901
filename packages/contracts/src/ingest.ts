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

/** `GET /f/{formKey}/altcha`: an ALTCHA challenge (the widget's `challengeurl` answer). */
export const AltchaChallengeSchema = z.looseObject({
  algorithm: z.string(),
  challenge: z.string(),
  maxnumber: z.number().optional(),
  salt: z.string(),
  signature: z.string(),
});
