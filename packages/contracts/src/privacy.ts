import { z } from 'zod';
import { emailAddress } from './email-address.ts';
import { RETENTION_DAYS_MAX } from './plans.ts';

/**
 * Erasure by submitter (issue 31): `POST /api/v1/erasures` with an address erases every submission of the
 * organization in which it appears and answers a receipt, signed with the instance's key (`GET
 * /api/v1/erasures/keys`), which anyone can verify later (`verifyErasureReceipt` of `@formgate/kit`).
 */
export const ErasureRequestSchema = z.strictObject({
  email: emailAddress(),
});
export type ErasureRequest = z.infer<typeof ErasureRequestSchema>;

/** What an erasure reached: never the address itself, only its keyed hash (`addressKey`). */
export const ErasureReceiptSchema = z.object({
  /** `erasure-receipt/1`: what the fields below mean. */
  type: z.literal('erasure-receipt/1'),
  id: z.string(),
  orgId: z.string(),
  /** Who asked: a member (`session`, their user id) or an organization API key (`api-key`, its id). */
  requestedBy: z.object({ id: z.string(), via: z.enum(['session', 'api-key']) }),
  /** HMAC-SHA256 of the address (trimmed, lower case) with the instance's key: the same address gives the same value. */
  addressKey: z.string(),
  erasedAt: z.string(),
  count: z.number().int().nonnegative(),
  /** The forms the erased submissions belonged to. */
  forms: z.array(z.string()),
  submissions: z.array(z.object({ id: z.string(), formId: z.string(), receivedAt: z.string() })),
});
export type ErasureReceipt = z.infer<typeof ErasureReceiptSchema>;

export const ErasureSignatureSchema = z.object({
  alg: z.literal('Ed25519'),
  /** Which of the instance's keys signed (`ErasureKeysDto`). */
  keyId: z.string(),
  /** base64url of the Ed25519 signature of `canonicalJson(receipt)` (UTF-8). */
  value: z.string(),
});
export type ErasureSignature = z.infer<typeof ErasureSignatureSchema>;

/** `POST /api/v1/erasures` and `GET /api/v1/erasures/{id}`: the receipt and its signature. */
export const SignedErasureReceiptSchema = z.object({
  receipt: ErasureReceiptSchema,
  signature: ErasureSignatureSchema,
});
export type SignedErasureReceipt = z.infer<typeof SignedErasureReceiptSchema>;

/** `GET /api/v1/erasures`: the organization's erasures, newest first (receipts without their submission lists). */
export const ErasureSummarySchema = ErasureReceiptSchema.omit({ submissions: true, type: true });
export type ErasureSummary = z.infer<typeof ErasureSummarySchema>;
export const ErasureListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/** `GET /api/v1/erasures/keys`: the public keys receipts are signed with (SPKI PEM), current first. */
export const ErasureKeysDtoSchema = z.object({
  keys: z.array(z.object({ keyId: z.string(), alg: z.literal('Ed25519'), publicKey: z.string() })),
});
export type ErasureKeysDto = z.infer<typeof ErasureKeysDtoSchema>;

/** JSON with object keys sorted at every level: what a receipt's signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `POST /api/v1/subject-access`: the same search as an erasure, answering what is held instead of erasing it. */
export const SubjectAccessRequestSchema = ErasureRequestSchema;

/**
 * Everything the organization holds about an address (issue 31's subject access export), for the owner to send on:
 * each submission in which it appears, with its fields and a short-lived download link per file.
 */
export const SubjectAccessDtoSchema = z.object({
  /** `subject-access/1`: what the fields below mean. */
  type: z.literal('subject-access/1'),
  orgId: z.string(),
  /** The address's keyed hash, as a receipt of its erasure would name it. */
  addressKey: z.string(),
  generatedAt: z.string(),
  submissions: z.array(
    z.object({
      id: z.string(),
      formId: z.string(),
      formName: z.string(),
      createdAt: z.string(),
      spam: z.boolean(),
      held: z.boolean(),
      fields: z.array(z.object({ name: z.string(), value: z.string() })),
      files: z.array(
        z.object({
          field: z.string(),
          filename: z.string(),
          contentType: z.string(),
          size: z.number().int().nonnegative(),
          /** `/api/v1/files/{token}`, valid until `expiresAt` (absent where files cannot be served). */
          url: z.string().optional(),
          expiresAt: z.string().optional(),
        }),
      ),
    }),
  ),
});
export type SubjectAccessDto = z.infer<typeof SubjectAccessDtoSchema>;

/**
 * Retention (issue 31): how long the organization keeps submissions when a form names no retention of its own.
 * `days` null: until deleted by hand. `planMaxDays`: the plan's maximum, which caps every setting (null: none).
 */
export const RetentionPolicyDtoSchema = z.object({
  days: z.number().int().nullable(),
  planMaxDays: z.number().int().nullable(),
});
export type RetentionPolicyDto = z.infer<typeof RetentionPolicyDtoSchema>;

/** `PATCH /api/v1/retention`: the organization's default, in days (1 to the plan's maximum), or null for none. */
export const RetentionPolicyRequestSchema = z.strictObject({
  days: z.number().int().min(1).max(RETENTION_DAYS_MAX).nullable(),
});
export type RetentionPolicyRequest = z.infer<typeof RetentionPolicyRequestSchema>;

/**
 * `GET /api/v1/forms/{formId}/retention`: the retention in force for the form and where it comes from (the form's
 * own setting, the organization's default, the plan's maximum; null: none, kept until deleted by hand), and when
 * its oldest live submission goes (null: none stored, or kept). Deletion runs on a schedule: a submission goes
 * within the sweep's interval (an hour by default) after `nextDeletionAt`.
 */
export const FormRetentionDtoSchema = z.object({
  days: z.number().int().nullable(),
  source: z.enum(['form', 'organization', 'plan']).nullable(),
  formDays: z.number().int().nullable(),
  organizationDays: z.number().int().nullable(),
  planMaxDays: z.number().int().nullable(),
  oldestSubmissionAt: z.string().nullable(),
  nextDeletionAt: z.string().nullable(),
});
export type FormRetentionDto = z.infer<typeof FormRetentionDtoSchema>;

/** The retention in force: the form's days, else the organization's, capped by the plan's maximum. */
export function effectiveRetention(
  formDays: number | null,
  organizationDays: number | null,
  planMaxDays: number | null,
): { days: number | null; source: FormRetentionDto['source'] } {
  const own = formDays ?? organizationDays;
  const source = formDays !== null ? 'form' : organizationDays !== null ? 'organization' : null;
  if (planMaxDays !== null && (own === null || own > planMaxDays)) return { days: planMaxDays, source: 'plan' };
  return { days: own, source };
}
