import { z } from 'zod';
import { AppError } from './errors.ts';
import { FormSchema, SpamVerdictSchema, SubmissionFieldSchema, SubmissionFileSchema } from './forms.ts';
import { DeliveryEventDataSchema } from './notifications.ts';
import { OrganizationEventSchema } from './orgs.ts';
import { Topics } from './topics.ts';

/** At most this many characters of a submission's `Origin` / `Referer` are kept. */
export const MAX_SOURCE_URL_LENGTH = 2048;

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    /** Unique per effect: consumers deduplicate on it. */
    id: z.string(),
    type: z.literal(type),
    version: z.literal(1),
    occurredAt: z.string(),
    data,
  });

export const FormUpsertedSchema = envelope('form.upserted', FormSchema);
export const FormDeletedSchema = envelope(
  'form.deleted',
  z.object({ formId: z.string(), orgId: z.string(), key: z.string(), version: z.number().int() }),
);

export const SubmissionReceivedSchema = envelope(
  'submission.received',
  z.object({
    submissionId: z.string(),
    formId: z.string(),
    orgId: z.string(),
    receivedAt: z.string(),
    fields: z.array(SubmissionFieldSchema),
    files: z.array(SubmissionFileSchema),
    /** Values of reserved fields (`_subject`, `_replyto`, `_cc`, …), normalised; never stored as data. */
    meta: z.object({
      subject: z.string().optional(),
      replyTo: z.string().optional(),
      cc: z.array(z.string()).optional(),
      format: z.string().optional(),
      language: z.string().optional(),
    }),
    spam: SpamVerdictSchema,
    /** Over quota: stored and shown, but not notified until released. */
    held: z.boolean(),
    idempotencyKey: z.string().optional(),
    /**
     * The request's `Origin` and `Referer` (without its fragment): `http(s)` only, at most `MAX_SOURCE_URL_LENGTH`
     * characters. Absent when the request had none (or a rejected one), and on events from before they were kept.
     */
    origin: z.string().max(MAX_SOURCE_URL_LENGTH).optional(),
    referer: z.string().max(MAX_SOURCE_URL_LENGTH).optional(),
  }),
);

/** What every change of a stored submission carries: enough for billing (its day) and notifications. */
const submissionChange = {
  submissionId: z.string(),
  formId: z.string(),
  orgId: z.string(),
  /** When ingest received the submission (its day in the stats). */
  receivedAt: z.string(),
  /** Whether it counted as spam just before this change (ingest's verdict, or the last mark). */
  wasSpam: z.boolean(),
};

/** A submission was deleted through the API: its fields and files are gone. */
export const SubmissionDeletedSchema = envelope('submission.deleted', z.object(submissionChange));
/** A submission was marked spam (`spam: true`) or not spam through the API. */
export const SubmissionSpamMarkedSchema = envelope(
  'submission.spam-marked',
  z.object({ ...submissionChange, spam: z.boolean() }),
);

export const QuotaUpdatedSchema = envelope(
  'quota.updated',
  z.object({
    orgId: z.string(),
    /** Calendar month, `YYYY-MM` (UTC). */
    period: z.string().regex(/^\d{4}-\d{2}$/),
    submissionsUsed: z.number().int().nonnegative(),
    submissionsMax: z.number().int().nonnegative(),
    overQuota: z.boolean(),
  }),
);

export const DeliverySucceededSchema = envelope('delivery.succeeded', DeliveryEventDataSchema);
export const DeliveryFailedSchema = envelope('delivery.failed', DeliveryEventDataSchema);

export type FormUpserted = z.infer<typeof FormUpsertedSchema>;
export type FormDeleted = z.infer<typeof FormDeletedSchema>;
export type SubmissionReceived = z.infer<typeof SubmissionReceivedSchema>;
export type QuotaUpdated = z.infer<typeof QuotaUpdatedSchema>;
export type SubmissionDeleted = z.infer<typeof SubmissionDeletedSchema>;
export type SubmissionSpamMarked = z.infer<typeof SubmissionSpamMarkedSchema>;
export type DeliveryEvent = z.infer<typeof DeliverySucceededSchema> | z.infer<typeof DeliveryFailedSchema>;

/** What may be published on each topic; checked when published and when consumed. */
export const TopicEventSchemas = {
  [Topics.formsForm]: z.discriminatedUnion('type', [FormUpsertedSchema, FormDeletedSchema]),
  [Topics.ingestSubmission]: SubmissionReceivedSchema,
  [Topics.billingQuota]: QuotaUpdatedSchema,
  [Topics.orgsOrganization]: OrganizationEventSchema,
  [Topics.formsSubmission]: z.discriminatedUnion('type', [SubmissionDeletedSchema, SubmissionSpamMarkedSchema]),
  [Topics.notificationsDelivery]: z.discriminatedUnion('type', [DeliverySucceededSchema, DeliveryFailedSchema]),
} as const;

export type TopicEvent<T extends keyof typeof TopicEventSchemas> = z.infer<(typeof TopicEventSchemas)[T]>;

export function encodeEvent<T extends keyof typeof TopicEventSchemas>(topic: T, event: TopicEvent<T>): string {
  return JSON.stringify(TopicEventSchemas[topic].parse(event));
}

/** Parses and validates a record's value; throws (→ retries, then dead letter) when it does not match. */
/**
 * Parses a record of `topic`. A record that is not JSON or fails its schema throws `EVENT_INVALID`: it can never be
 * handled, so the bus dead-letters it at once instead of retrying.
 */
export function decodeEvent<T extends keyof typeof TopicEventSchemas>(topic: T, raw: string): TopicEvent<T> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (cause) {
    throw new AppError('EVENT_INVALID', `A record of ${topic} is not JSON`, { cause });
  }
  const parsed = TopicEventSchemas[topic].safeParse(json);
  if (!parsed.success) {
    const details = parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new AppError('EVENT_INVALID', `A record of ${topic} does not match its schema`, { details });
  }
  return parsed.data as TopicEvent<T>;
}
