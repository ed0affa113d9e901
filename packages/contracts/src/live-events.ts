import { z } from 'zod';

/**
 * `GET /api/v1/events` (`formgate listen`): an organization's new submissions, as their webhooks describe them, and
 * the outcomes of its deliveries, live, as server-sent events.
 */

/** The events a stream carries; a submission's are those of its webhooks (`WebhookEventTypeSchema`). */
export const LiveEventTypeSchema = z.enum([
  'submission.created',
  'submission.spam',
  'delivery.succeeded',
  'delivery.failed',
]);
export type LiveEventType = z.infer<typeof LiveEventTypeSchema>;
export const LIVE_EVENT_TYPES = LiveEventTypeSchema.options;

/** Streams one organization may have open at once on one notifications instance. */
export const MAX_EVENT_STREAMS_PER_ORG = 5;
/** A comment line is sent this often on an idle stream, so proxies and clients see it alive. */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;

export const EventStreamQuerySchema = z.object({
  /** Only this form's submissions and deliveries (a form of the organization). */
  formId: z.string().min(1).max(100).optional(),
});
export type EventStreamQuery = z.infer<typeof EventStreamQuerySchema>;
