import { z } from 'zod';
import type { ErrorCode } from './errors.ts';
import { FormSettingsSchema, SubmissionFieldSchema, SubmissionFileSchema } from './forms.ts';

export const CreateFormRequestSchema = z.object({
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    .max(80)
    .optional(),
  settings: FormSettingsSchema.partial().optional(),
});
export type CreateFormRequest = z.infer<typeof CreateFormRequestSchema>;

export const UpdateFormRequestSchema = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  settings: FormSettingsSchema.partial().optional(),
});
export type UpdateFormRequest = z.infer<typeof UpdateFormRequestSchema>;

export const SubmissionDtoSchema = z.object({
  id: z.string(),
  formId: z.string(),
  createdAt: z.string(),
  fields: z.array(SubmissionFieldSchema),
  files: z.array(SubmissionFileSchema),
  spam: z.boolean(),
  held: z.boolean(),
});
export type SubmissionDto = z.infer<typeof SubmissionDtoSchema>;

/** Every keyset-paged list: `nextCursor` is null on the last page. */
export interface ListEnvelope<T> {
  data: T[];
  nextCursor: string | null;
}

/** The one error envelope every Formgate API answers with (the public ingest uses Formspree's format). */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; requestId: string; details?: unknown };
}

/** Every read and write on behalf of a caller names the organization it is scoped to. */
export interface OrgScope {
  orgId: string;
}
