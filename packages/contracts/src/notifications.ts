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
});
export type DeliveryEventData = z.infer<typeof DeliveryEventDataSchema>;

/** `GET /api/v1/notification-emails` items: the organization's notification addresses. */
export interface NotificationEmailDto {
  id: string;
  email: string;
  verified: boolean;
  createdAt: string;
}

/** One entry of a submission's delivery log (`GET …/submissions/{id}/deliveries`). */
export interface DeliveryDto {
  id: string;
  formId: string;
  submissionId: string;
  channel: DeliveryChannel;
  /** `notification` or `autoresponse` for email; the endpoint kind for webhooks. */
  purpose: string;
  /** The address, or the webhook endpoint's URL (its id in `targetId`). */
  target: string;
  targetId: string | null;
  status: DeliveryStatus;
  attempts: number;
  /** The last attempt's outcome: an SMTP reply / HTTP status, or an error code, and a short text. */
  lastResponse: { code: string; text: string } | null;
  /** The email's `Message-ID`, or the webhook's `webhook-id`. */
  messageId: string | null;
  nextAttemptAt: string | null;
  /** The delivery this one resends, if any. */
  resendOf: string | null;
  createdAt: string;
  updatedAt: string;
}
