import { z } from 'zod';
import type { ErrorCode } from './errors.ts';
import {
  FormSchema,
  FormSettingsPatchSchema,
  FormSettingsSchema,
  SubmissionFieldSchema,
  SubmissionFileDtoSchema,
} from './forms.ts';
import { SpamReasonSchema, SpamSettingsPatchViewSchema } from './spam.ts';
import { trimmedText } from './text.ts';

/**
 * The largest JSON body the gateway and the forms and organization services take: room for the largest settings the
 * document allows (500 blocked words and 500 blocked domains at their maximum length, ~530 KB in a 3-byte script).
 */
export const API_BODY_LIMIT_BYTES = 1024 * 1024;

export const CreateFormRequestSchema = z.object({
  name: trimmedText(200),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    .max(80)
    .optional(),
  settings: FormSettingsPatchSchema.optional(),
});
export type CreateFormRequest = z.infer<typeof CreateFormRequestSchema>;

export const UpdateFormRequestSchema = z.object({
  name: trimmedText(200).optional(),
  settings: FormSettingsPatchSchema.optional(),
});
export type UpdateFormRequest = z.infer<typeof UpdateFormRequestSchema>;

export const SubmissionDtoSchema = z.object({
  id: z.string(),
  formId: z.string(),
  createdAt: z.string(),
  fields: z.array(SubmissionFieldSchema),
  files: z.array(SubmissionFileDtoSchema),
  spam: z.boolean(),
  /** Ingest's reasons (issue 14), shadow ones included (`shadow: true`); empty for a clean submission. */
  spamReasons: z.array(SpamReasonSchema),
  held: z.boolean(),
  /** The submitting page's `Origin` / `Referer` as ingest recorded them; null when unknown. Untrusted text. */
  origin: z.string().nullable(),
  referer: z.string().nullable(),
  /**
   * A no-store form's submission whose deliveries are done (issue 31): only its metadata is kept, so `fields` and
   * `files` are empty and `origin`, `referer` null.
   */
  contentDropped: z.boolean(),
});
export type SubmissionDto = z.infer<typeof SubmissionDtoSchema>;

/** Every keyset-paged list: `nextCursor` is null on the last page. */
export interface ListEnvelope<T> {
  data: T[];
  nextCursor: string | null;
}

/** `?limit=&cursor=` of every keyset-paged list. */
export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().max(400).optional(),
});

/** `GET /api/v1/forms?slug=`: every form of the organization, or the one with this slug. */
export const FormListQuerySchema = z.object({ slug: z.string().max(100).optional() });

const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
/**
 * An ISO-8601 date (UTC midnight) or date-time with its offset, as the UTC instant `createdAt` is compared with;
 * declared as `format: date` or `format: date-time`.
 */
const queryInstant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .transform((v) => new Date(Date.parse(v)).toISOString());

/**
 * The filter parameters shared by the submissions list and its export: `spam`, `held`, `from`, `to`, `q` (1–8
 * words, checked by the forms service: `FORMS_INVALID_SEARCH`).
 */
export const SubmissionFilterQuerySchema = z.object({
  spam: queryBool.optional(),
  held: queryBool.optional(),
  from: queryInstant.optional(),
  to: queryInstant.optional(),
  q: z.string().optional(),
});
export type SubmissionFilterQuery = z.infer<typeof SubmissionFilterQuerySchema>;

/** `GET …/submissions/export?format=` (and the filters of `SubmissionFilterQuerySchema`). */
export const SubmissionExportQuerySchema = z.object({ format: z.enum(['csv', 'json', 'ndjson']).default('csv') });

/** The schema of a keyset-paged list of `item`s. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });
/** The schema of an unpaged list `{ data }`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** The API's error envelope, as a schema (the OpenAPI description narrows `code` per status and route). */
export const ErrorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    requestId: z.string(),
    /** Validation issues (`[{path, message}]`) or a code's documented details. */
    details: z.unknown().optional(),
  }),
});

/** The one error envelope every Formgate API answers with (the public ingest uses Formspree's format). */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; requestId: string; details?: unknown };
}

/** Every read and write on behalf of a caller names the organization it is scoped to. */
export interface OrgScope {
  orgId: string;
}

/** `PATCH /api/v1/forms/{formId}/submissions/{id}`: mark spam (`true`) or not spam (`false`). */
export const UpdateSubmissionRequestSchema = z.strictObject({ spam: z.boolean() });
export type UpdateSubmissionRequest = z.infer<typeof UpdateSubmissionRequestSchema>;

/** At most this many submission ids in one bulk request. */
export const MAX_BULK_IDS = 100;

/** `POST /api/v1/forms/{formId}/submissions/bulk`: one action for up to `MAX_BULK_IDS` distinct submissions. */
export const BulkSubmissionsRequestSchema = z.strictObject({
  action: z.enum(['delete', 'spam', 'not-spam']),
  ids: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(MAX_BULK_IDS)
    .refine((ids) => new Set(ids).size === ids.length, {
      message: 'ids must be distinct',
      params: { jsonSchema: { uniqueItems: true } },
    }),
});
export type BulkSubmissionsRequest = z.infer<typeof BulkSubmissionsRequestSchema>;
export type SubmissionAction = BulkSubmissionsRequest['action'];

/** What one action did to one submission: `unchanged` when it was already so, `not_found` when there is none. */
export type SubmissionChangeResult = 'changed' | 'unchanged' | 'not_found';

/** `GET /api/v1/forms/{formId}/stats?days=N` (1–365, default 30). */
export const FormStatsQuerySchema = z.strictObject({
  days: z.coerce.number().int().min(1).max(365).default(30),
});

/** One UTC day of a form's live submissions: `total` counts every one, `spam` those of them counted as spam. */
export const DailyCountSchema = z.object({
  /** `YYYY-MM-DD`, UTC. */
  day: z.string(),
  total: z.number().int(),
  spam: z.number().int(),
  /** Requests to the form refused by a spam layer that day (403 `BLOCKED`, 429 `RATE_LIMITED`): never stored. */
  blocked: z.number().int(),
});
export type DailyCount = z.infer<typeof DailyCountSchema>;

/** `GET /api/v1/forms/{formId}/stats`: `days` UTC days from `from` to `to`, oldest first. */
export const FormStatsDtoSchema = z.object({
  days: z.number().int(),
  from: z.string(),
  to: z.string(),
  data: z.array(DailyCountSchema),
});
export type FormStatsDto = z.infer<typeof FormStatsDtoSchema>;

/** A form's exact counters, as shown on the form list and detail. */
export const FormCountsSchema = z.object({
  /** Live submissions (deleted ones leave it; spam included). */
  submissionCount: z.number().int(),
  /** Of those, the ones counted as spam (ingest's verdict unless marked otherwise). */
  spamCount: z.number().int(),
  /** When the newest submission was received (deleted or not); null before the first. */
  lastSubmissionAt: z.string().nullable(),
  /**
   * Submissions held over the organization's quota, waiting for an upgrade or the next period (issue 13). They are
   * in none of the counts above (nor in the daily stats) until released.
   */
  heldCount: z.number().int(),
  /** Requests refused by a spam layer (issue 14) in the last 30 days; none of them was stored. */
  blockedCount: z.number().int(),
});
export type FormCounts = z.infer<typeof FormCountsSchema>;

/** A form's settings as the API shows them: the captcha secret never leaves the service (`secret: null`, `secretSet`). */
export const FormSettingsViewSchema = FormSettingsSchema.extend({ spam: SpamSettingsPatchViewSchema.nullable() });

/** A form as the API shows it (a PATCH's answer): `endpoint` is its public path `/f/{key}`. */
export const FormDtoSchema = FormSchema.omit({ orgId: true, version: true }).extend({
  settings: FormSettingsViewSchema,
  endpoint: z.string(),
});
export type FormDto = z.infer<typeof FormDtoSchema>;
/** A form with its counters (list, get, create). */
export const FormWithCountsDtoSchema = FormDtoSchema.extend(FormCountsSchema.shape);
export type FormWithCountsDto = z.infer<typeof FormWithCountsDtoSchema>;

/** `POST …/submissions/bulk`: what the action did to each id. */
export const BulkSubmissionsResultDtoSchema = z.object({
  action: z.enum(['delete', 'spam', 'not-spam']),
  data: z.array(z.object({ id: z.string(), result: z.enum(['changed', 'unchanged', 'not_found']) })),
});
export type BulkSubmissionsResultDto = z.infer<typeof BulkSubmissionsResultDtoSchema>;

/** `GET …/files/{fileId}/link`: a download link (`/api/v1/files/{token}`) valid until `expiresAt`. */
export const FileLinkDtoSchema = z.object({ url: z.string(), expiresAt: z.string() });
export type FileLinkDto = z.infer<typeof FileLinkDtoSchema>;
