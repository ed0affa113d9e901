import { z } from 'zod';
import { AppError } from './errors.ts';
import { FormSchema, SpamVerdictSchema, SubmissionFieldSchema, SubmissionFileSchema } from './forms.ts';
import { DeliveryEventDataSchema } from './notifications.ts';
import { OrganizationEventSchema } from './orgs.ts';
import { BlockedCountSchema, SpamSettingsPatchSchema } from './spam.ts';
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
    /**
     * The version of its form ingest accepted it under (read your own settings, docs/architecture.md): a consumer
     * whose view of the form is older waits until it has this version. Absent on a submission forms re-emits (a
     * release, a release from spam), which is handled under the view as it stands.
     */
    formVersion: z.number().int().positive().optional(),
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

/**
 * A submission was deleted through the API: its fields and files are gone. Deleted by an erasure (issue 31):
 * `erasure` is its id, and every copy of the submission must go (notifications: its copy, the content of its
 * deliveries); a held submission can be erased (`wasHeld`), never deleted otherwise.
 */
export const SubmissionDeletedSchema = envelope(
  'submission.deleted',
  z.object({
    ...submissionChange,
    erasure: z.string().optional(),
    /**
     * Deleted by the retention in force (issue 31): consumers forget what they keep of its contents, as for an
     * erasure, and tell no one.
     */
    expired: z.literal(true).optional(),
    wasHeld: z.boolean().optional(),
  }),
);
/**
 * A submission was marked spam (`spam: true`) or not spam through the API. Marked not spam when it was spam
 * (`wasSpam`), it carries the whole submission (`submission`, issue 14): it is then notified and billed once, as if
 * it had just arrived (consumers key that on the submission id, so a second release does nothing).
 */
export const SubmissionSpamMarkedSchema = envelope(
  'submission.spam-marked',
  z.object({
    ...submissionChange,
    spam: z.boolean(),
    submission: z.lazy(() => SubmissionReceivedSchema.shape.data).optional(),
  }),
);

/**
 * A held submission was released (its organization upgraded, or a new period began): it is now visible, and is
 * notified and billed as if it had just arrived. Carries the whole submission, so consumers need no call.
 */
export const SubmissionReleasedSchema = envelope(
  'submission.released',
  SubmissionReceivedSchema.shape.data.extend({ held: z.literal(false), releasedAt: z.string() }),
);

const count = z.number().int().nonnegative();

/**
 * An organization's quota view, compacted by orgId. The fields after `overQuota` came with plans (issue 13); records
 * from before carry none of them, hence the defaults.
 */
export const QuotaUpdatedSchema = envelope(
  'quota.updated',
  z.object({
    orgId: z.string(),
    /** Calendar month, `YYYY-MM` (UTC). */
    period: z.string().regex(/^\d{4}-\d{2}$/),
    submissionsUsed: count,
    submissionsMax: count,
    /** New submissions are held (stored, not shown, not notified, not billed). */
    overQuota: z.boolean(),
    /** The plan in effect. */
    planId: z.string().optional(),
    /**
     * The `changedAt` of the subscription state the view was computed from (`null`: none). Within a period a view
     * computed from an older subscription state is stale, whatever its counts.
     */
    subscriptionChangedAt: z.string().nullable().optional(),
    /** Held submissions waiting for an upgrade or the next period. */
    submissionsHeld: count.default(0),
    emailsUsed: count.default(0),
    emailsMax: count.optional(),
    /** New notification emails are deferred (kept, sent when the quota allows), never dropped. */
    emailsOverQuota: z.boolean().default(false),
    /**
     * The organization's stored files against its plan's `fileStorageMb` (`maxMb` `null`: no limit), measured at
     * `measuredAt`. Only in views published after files were stored or freed, or the plan changed; absent: what the
     * last view measured still holds. When `full`, ingest refuses submissions and upload grants with files.
     */
    fileStorage: z
      .object({
        usedMb: z.number().nonnegative(),
        maxMb: count.nullable(),
        full: z.boolean(),
        measuredAt: z.string(),
      })
      .optional(),
  }),
);

export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'incomplete',
  'incomplete_expired',
  'unpaid',
  'paused',
] as const;

/**
 * An organization's Stripe subscription changed (from the gateway's stripe plugin, one event per applied Stripe
 * event), or an operator set its plan (`PUT /api/ops/orgs/:org/plan`, `source: 'operator'`). Billing keeps the
 * newest by `changedAt`, so a delivery out of order never rolls a plan back.
 */
export const SubscriptionChangedSchema = envelope(
  'subscription.changed',
  z.object({
    orgId: z.string(),
    /** The plan subscribed to; whether it is in effect depends on `status`. */
    planId: z.string(),
    /** `null`: the organization has no subscription (any more). */
    status: z.enum(SUBSCRIPTION_STATUSES).nullable(),
    interval: z.enum(['month', 'year']).nullable(),
    periodStart: z.string().nullable(),
    periodEnd: z.string().nullable(),
    cancelAtPeriodEnd: z.boolean(),
    trialEnd: z.string().nullable(),
    stripeSubscriptionId: z.string().nullable(),
    /** When Stripe made the change (its event's `created`, ISO 8601); for an operator grant, when it was made. */
    changedAt: z.string(),
    /**
     * Who made the change: Stripe (absent on events from before this field) or an operator (`formgate orgs
     * set-plan`, ADR 49). Billing applies both alike: the newest `changedAt` wins.
     */
    source: z.enum(['stripe', 'operator']).optional(),
  }),
);

export const DeliverySucceededSchema = envelope('delivery.succeeded', DeliveryEventDataSchema);
export const DeliveryFailedSchema = envelope('delivery.failed', DeliveryEventDataSchema);
/** An email over its organization's emails quota: kept, not attempted, sent when the quota allows (`final: false`). */
export const DeliveryDeferredSchema = envelope('delivery.deferred', DeliveryEventDataSchema);
/**
 * Notifications are done with a submission of a form that stores no content (`settings.storeContent: false`, issue
 * 31): every delivery of it succeeded or failed for good, and notifications dropped their copy and the content of
 * its deliveries. Forms then keeps only its metadata. Keyed by organization like the outcomes; its id derives from
 * the submission, so a republished one is the same event to consumers.
 */
export const SubmissionSettledSchema = envelope(
  'submission.settled',
  z.object({ submissionId: z.string(), formId: z.string(), orgId: z.string(), settledAt: z.string() }),
);

export type FormUpserted = z.infer<typeof FormUpsertedSchema>;
export type FormDeleted = z.infer<typeof FormDeletedSchema>;
export type SubmissionReceived = z.infer<typeof SubmissionReceivedSchema>;
export type QuotaUpdated = z.infer<typeof QuotaUpdatedSchema>;
export type SubmissionReleased = z.infer<typeof SubmissionReleasedSchema>;
export type SubscriptionChanged = z.infer<typeof SubscriptionChangedSchema>;
export type SubmissionDeleted = z.infer<typeof SubmissionDeletedSchema>;
export type SubmissionSpamMarked = z.infer<typeof SubmissionSpamMarkedSchema>;
export type DeliveryEvent =
  | z.infer<typeof DeliverySucceededSchema>
  | z.infer<typeof DeliveryFailedSchema>
  | z.infer<typeof DeliveryDeferredSchema>;

/**
 * One ingest instance's abuse report for the last interval (issue 14): counts per rate-limit key (IPs as keyed
 * hashes, never in clear), ALTCHA solutions it accepted (hashes, until they expire), and what it blocked per form.
 */
export const AbuseReportSchema = envelope(
  'abuse.report',
  z.object({
    instance: z.string(),
    rate: z.array(
      z.object({ scope: z.enum(['ip', 'form', 'org']), key: z.string().max(200), minute: z.string(), count: count }),
    ),
    altchaUsed: z.array(z.object({ hash: z.string().max(200), expiresAt: z.string() })),
    blocked: z.array(BlockedCountSchema),
  }),
);

/** An organization's settings that other services read (issue 14: its spam defaults); `version` orders them. */
export const OrgSettingsChangedSchema = envelope(
  'org.settings-changed',
  z.object({ orgId: z.string(), spam: SpamSettingsPatchSchema.nullable(), version: z.number().int().positive() }),
);

/** What may be published on each topic; checked when published and when consumed. */
export const TopicEventSchemas = {
  [Topics.formsForm]: z.discriminatedUnion('type', [FormUpsertedSchema, FormDeletedSchema]),
  [Topics.ingestSubmission]: SubmissionReceivedSchema,
  [Topics.billingQuota]: QuotaUpdatedSchema,
  [Topics.orgsOrganization]: OrganizationEventSchema,
  [Topics.formsSubmission]: z.discriminatedUnion('type', [
    SubmissionDeletedSchema,
    SubmissionSpamMarkedSchema,
    SubmissionReleasedSchema,
  ]),
  [Topics.billingSubscription]: SubscriptionChangedSchema,
  [Topics.notificationsDelivery]: z.discriminatedUnion('type', [
    DeliverySucceededSchema,
    DeliveryFailedSchema,
    DeliveryDeferredSchema,
    SubmissionSettledSchema,
  ]),
  [Topics.ingestAbuse]: AbuseReportSchema,
  [Topics.orgsSettings]: OrgSettingsChangedSchema,
} as const;

export type TopicEvent<T extends keyof typeof TopicEventSchemas> = z.infer<(typeof TopicEventSchemas)[T]>;

/** What may be passed to `encodeEvent`: fields with defaults may be left out. */
export type TopicEventInput<T extends keyof typeof TopicEventSchemas> = z.input<(typeof TopicEventSchemas)[T]>;

export function encodeEvent<T extends keyof typeof TopicEventSchemas>(topic: T, event: TopicEventInput<T>): string {
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
