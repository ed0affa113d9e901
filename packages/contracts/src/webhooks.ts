import { z } from 'zod';

/** The events a webhook endpoint can subscribe to. */
export const WebhookEventTypeSchema = z.enum(['submission.created', 'submission.spam', 'submission.deleted']);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;

/**
 * How an endpoint's bodies are shaped: Standard Webhooks JSON, a Slack incoming webhook, a Discord webhook, or a
 * REST hook's flat body (Zapier, Make, n8n: `rest-hooks.ts`).
 */
export const WebhookKindSchema = z.enum(['standard', 'slack', 'discord', 'rest-hook']);
export type WebhookKind = z.infer<typeof WebhookKindSchema>;
/** The kinds the webhooks API creates: a `rest-hook` endpoint is made by subscribing (`POST /api/v1/hooks`). */
export const CreatableWebhookKindSchema = WebhookKindSchema.exclude(['rest-hook']);

/** Longest endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;
/** Most endpoints one form may have. */
export const MAX_WEBHOOKS_PER_FORM = 10;

/**
 * An endpoint's URL as declared (spaces around it are trimmed): `http(s)://`, a host name whose last label starts
 * with a letter, an IPv4 address or a bracketed IPv6 one, an optional port up to 65535, then any visible characters. The service checks it again with the URL parser
 * (`NOTIFICATIONS_WEBHOOK_URL_INVALID`) and refuses private targets (`NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN`).
 */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const PORT = '(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
const H16 = '[0-9A-Fa-f]{1,4}';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
/** An IPv6 address in brackets: eight groups, or fewer around one `::`, the last two possibly as an IPv4 address. */
const IPV6 = [
  `(?:${H16}:){6}${IPV4}`,
  `::(?:[Ff]{4}:)?${IPV4}`,
  `(?:${H16}:){1,4}:${IPV4}`,
  `(?:${H16}:){7}${H16}`,
  ...[0, 1, 2, 3, 4, 5, 6].map((left) =>
    left === 0 ? `:(?::${H16}){1,7}|::` : `(?:${H16}:){1,${left}}(?::${H16}){1,${7 - left}}`,
  ),
  `(?:${H16}:){1,7}:`,
].join('|');
const WEBHOOK_URL_PATTERN = new RegExp(
  `^\\s*https?://(?:(?:${LABEL}\\.)*${TOP_LABEL}|${IPV4}|\\[(?:${IPV6})\\])(?::${PORT})?(?:[/?#][\\x21-\\x7e]*)?\\s*$`,
);
export const WebhookUrlSchema = z.string().max(MAX_WEBHOOK_URL_LENGTH).regex(WEBHOOK_URL_PATTERN, 'an http(s) URL');

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
    url: WebhookUrlSchema,
    kind: CreatableWebhookKindSchema.default('standard'),
    events: events.default(['submission.created']),
  })
  .strict();
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;

/** `PATCH …/webhooks/{id}`: any of these; `enabled: true` re-enables an endpoint disabled after failures. */
export const UpdateWebhookRequestSchema = z
  .object({
    url: WebhookUrlSchema.optional(),
    kind: CreatableWebhookKindSchema.optional(),
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
