import { z } from 'zod';

/** How a submission reaches someone: an email to a verified address, or a POST to a webhook endpoint. */
export const DeliveryChannelSchema = z.enum(['email', 'webhook']);
export type DeliveryChannel = z.infer<typeof DeliveryChannelSchema>;

/**
 * A delivery's state: `pending` (planned or being sent), `retrying` (a temporary failure; `nextAttemptAt` says
 * when), `deferred` (an email over the organization's emails quota: kept, no attempt made, sent when the quota
 * allows), `succeeded`, `failed` (permanent failure, or the retry schedule ran out).
 */
export const DeliveryStatusSchema = z.enum(['pending', 'retrying', 'deferred', 'succeeded', 'failed']);
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

/**
 * What `delivery.succeeded` / `delivery.failed` / `delivery.deferred` on `notifications.delivery` carry (keyed by
 * orgId).
 */
export const DeliveryEventDataSchema = z.object({
  deliveryId: z.string(),
  orgId: z.string(),
  formId: z.string(),
  submissionId: z.string(),
  channel: DeliveryChannelSchema,
  /** `email` → `autoresponse` or `notification`; `webhook` → the endpoint's kind. */
  purpose: z.string(),
  /** The recipient address, or the webhook endpoint's id (never its URL: a Slack or Discord URL is a credential). */
  target: z.string(),
  /** 1 for the first attempt (`delivery.deferred`: the attempt that will follow). */
  attempt: z.number().int().positive(),
  /** For `delivery.failed`: true when no attempt will follow. */
  final: z.boolean(),
  /** When it happened; billing meters emails in this moment's period. */
  at: z.string(),
  /**
   * True on the outcome of a delivery whose first attempt was claimed as it was planned (a consumer batch's, ADR 61):
   * it was never deferred, so no `delivery.deferred` of it exists and billing keeps no entry of it in its deferred
   * emails' ledger (ADR 65). Absent when not known (billing then records that the delivery left that ledger).
   */
  neverDeferred: z.boolean().optional(),
});
export type DeliveryEventData = z.infer<typeof DeliveryEventDataSchema>;

/** `GET /api/v1/notification-emails` items: the organization's notification addresses. */
export const NotificationEmailDtoSchema = z.object({
  id: z.string(),
  email: z.string(),
  verified: z.boolean(),
  createdAt: z.string(),
});
export type NotificationEmailDto = z.infer<typeof NotificationEmailDtoSchema>;

/** One entry of a submission's delivery log (`GET …/submissions/{id}/deliveries`). */
export const DeliveryDtoSchema = z.object({
  id: z.string(),
  formId: z.string(),
  submissionId: z.string(),
  channel: DeliveryChannelSchema,
  /** `notification` or `autoresponse` for email; the endpoint kind for webhooks. */
  purpose: z.string(),
  /** The address, or the webhook endpoint's URL (its id in `targetId`). */
  target: z.string(),
  targetId: z.string().nullable(),
  status: DeliveryStatusSchema,
  attempts: z.number().int(),
  /** The last attempt's outcome: an SMTP reply / HTTP status, or an error code, and a short text. */
  lastResponse: z.object({ code: z.string(), text: z.string() }).nullable(),
  /** The email's `Message-ID`, or the webhook's `webhook-id`. */
  messageId: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  /** The delivery this one resends, if any. */
  resendOf: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type DeliveryDto = z.infer<typeof DeliveryDtoSchema>;

/**
 * `POST /api/v1/forms/{formId}/deliveries/replay`: failed deliveries created in `[from, to)` (an empty range when
 * `to` is not after `from`). Any span: each call replays a bounded number and says whether more remain.
 */
export const ReplayRequestSchema = z
  .object({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
    status: z.literal('failed').default('failed'),
  })
  .strict()
  .transform((r) => ({ ...r, from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() }));

/** `POST …/deliveries/replay`: failed deliveries re-attempted, skipped (gone, unverified), and whether more remain. */
export const ReplayResultDtoSchema = z.object({
  replayed: z.number().int(),
  skipped: z.number().int(),
  more: z.boolean(),
});
export type ReplayResultDto = z.infer<typeof ReplayResultDtoSchema>;
