import { z } from 'zod';

/** The events a webhook endpoint can subscribe to. */
export const WebhookEventTypeSchema = z.enum(['submission.created', 'submission.spam', 'submission.deleted']);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/** How an endpoint's bodies are shaped: Standard Webhooks JSON, a Slack incoming webhook, or a Discord webhook. */
export const WebhookKindSchema = z.enum(['standard', 'slack', 'discord']);
export type WebhookKind = z.infer<typeof WebhookKindSchema>;

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;
/** Most endpoints one form may have. */
export const MAX_WEBHOOKS_PER_FORM = 10;

const events = z
  .array(WebhookEventTypeSchema)
  .min(1, 'choose at least one event')
  .max(3)
  .transform((list) => [...new Set(list)]);

/**
 * `POST /api/v1/forms/{formId}/webhooks`. The URL is checked by the service (`NOTIFICATIONS_WEBHOOK_URL_INVALID`,
 * `NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN`), so that each problem has its own code.
 */
export const CreateWebhookRequestSchema = z
  .object({
    url: z.string(),
    kind: WebhookKindSchema.default('standard'),
    events: events.default(['submission.created']),
  })
  .strict();
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** `PATCH …/webhooks/{id}`: any of these; `enabled: true` re-enables an endpoint disabled after failures. */
export const UpdateWebhookRequestSchema = z
  .object({
    url: z.string().optional(),
    kind: WebhookKindSchema.optional(),
    events: events.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequestSchema>;

/** An endpoint as the API shows it: never its secret, only the secret's last 4 characters. */
export const WebhookEndpointDtoSchema = z.object({
  id: z.string(),
  formId: z.string(),
  url: z.string(),
  kind: WebhookKindSchema,
  events: z.array(WebhookEventTypeSchema),
  enabled: z.boolean(),
  /** Why the service disabled it (410 Gone, failing deliveries); null when enabled or disabled by a person. */
  disabledReason: z.string().nullable(),
  /** The last 4 characters of the signing secret. */
  secretHint: z.string(),
  /** After a rotation: until when the previous secret still signs too (24 h); null otherwise. */
  previousSecretExpiresAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The endpoint's most recent deliveries (`recent`, at most 50): final outcomes and their success rate. */
  stats: z.object({
    recent: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    successRate: z.number().nullable(),
  }),
});
export type WebhookEndpointDto = z.infer<typeof WebhookEndpointDtoSchema>;

/** The answer to a creation or a rotation: the only time the secret (`whsec_…`) is shown. */
export const WebhookEndpointWithSecretDtoSchema = WebhookEndpointDtoSchema.extend({ secret: z.string() });
export type WebhookEndpointWithSecretDto = z.infer<typeof WebhookEndpointWithSecretDtoSchema>;
