import { z } from 'zod';

export const FormSettingsSchema = z.object({
  /** Where an HTML form is sent after a successful submission; null → Formgate's thank-you page. */
  redirectUrl: z.url({ protocol: /^https?$/ }).nullable(),
  /** Origins (scheme://host[:port]) allowed as `_next` targets and, later, as submitting origins. */
  allowedOrigins: z.array(z.string().min(1).max(200)).max(50),
  /** A form-specific honeypot field name, in addition to the reserved ones. */
  honeypotField: z.string().min(1).max(100).nullable(),
  enabled: z.boolean(),
});
export type FormSettings = z.infer<typeof FormSettingsSchema>;

export const FormSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  name: z.string().min(1).max(200),
  slug: z.string(),
  /** The public key in `/f/{key}`. */
  key: z.string(),
  settings: FormSettingsSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Increments on every change; views keep the highest version they have seen. */
  version: z.number().int().positive(),
});
export type Form = z.infer<typeof FormSchema>;

export const DEFAULT_FORM_SETTINGS: FormSettings = {
  redirectUrl: null,
  allowedOrigins: [],
  honeypotField: null,
  enabled: true,
};

export const SubmissionFieldSchema = z.object({ name: z.string(), value: z.string() });
export type SubmissionField = z.infer<typeof SubmissionFieldSchema>;

export const SubmissionFileSchema = z.object({
  field: z.string(),
  /** Key in the blob store; random, never derived from the client's file name. */
  blobKey: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
});
export type SubmissionFile = z.infer<typeof SubmissionFileSchema>;

export const SpamVerdictSchema = z.object({
  isSpam: z.boolean(),
  reasons: z.array(z.string()),
});
export type SpamVerdict = z.infer<typeof SpamVerdictSchema>;
