import { z } from 'zod';
import type { SubmissionField } from './forms.ts';
import { WebhookEventTypeSchema, WebhookUrlSchema } from './webhooks.ts';

/**
 * REST hooks (`/api/v1/hooks`, docs/integrations.md): the subscribe / unsubscribe / sample conventions Zapier, Make
 * and n8n build triggers on. A hook is a webhook endpoint of kind `rest-hook` with one event: it is delivered,
 * signed, retried and limited like every endpoint, and a 410 Gone from its target unsubscribes it.
 */

/** `POST /api/v1/hooks`: what a platform sends when a zap, scenario or workflow is switched on. */
export const SubscribeRestHookRequestSchema = z
  .object({
    targetUrl: WebhookUrlSchema,
    event: WebhookEventTypeSchema,
    formId: z.string().min(1),
  })
  .strict();
export type SubscribeRestHookRequest = z.infer<typeof SubscribeRestHookRequestSchema>;

/** A subscription as `POST /api/v1/hooks` answers it; `secret` (`whsec_…`) signs its deliveries, shown this once. */
export const RestHookDtoSchema = z.object({
  id: z.string(),
  targetUrl: z.string(),
  event: WebhookEventTypeSchema,
  formId: z.string(),
  createdAt: z.string(),
  secret: z.string(),
});
export type RestHookDto = z.infer<typeof RestHookDtoSchema>;

/** `GET /api/v1/hooks/sample`: the form, and the event whose body is sampled. */
export const RestHookSampleQuerySchema = z.object({
  formId: z.string().min(1),
  event: WebhookEventTypeSchema.default('submission.created'),
});
export type RestHookSampleQuery = z.infer<typeof RestHookSampleQuerySchema>;

/** A file of the submission: its name, type and size; never a key or a link (the API gives short-lived links). */
export const RestHookFileSchema = z.object({
  field: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
});

/**
 * The body of a `rest-hook` delivery, flat so that a platform can offer each value for mapping: `fields` maps each
 * field name to its value, or to the list of its values, in order, when the submission repeats the name (checkboxes
 * sharing a name): nothing is lost. A deletion carries no content: `fields` is `{}` and `files` `[]`.
 */
export const RestHookBodySchema = z.object({
  /** The submission's id (`example` in a sample made up for a form without submissions). */
  id: z.string(),
  event: WebhookEventTypeSchema,
  /** When the submission was received. */
  createdAt: z.string(),
  form: z.object({ id: z.string(), name: z.string() }),
  fields: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  files: z.array(RestHookFileSchema),
});
export type RestHookBody = z.infer<typeof RestHookBodySchema>;

/** The sample: up to 3 recent submissions' bodies, or one made-up body (`example: true`) when there are none. */
export const RestHookSampleDtoSchema = z.object({
  data: z.array(RestHookBodySchema),
  example: z.boolean(),
});
export type RestHookSampleDto = z.infer<typeof RestHookSampleDtoSchema>;

/** `submission.erased` is never planned for a REST hook (it hears only the event it subscribed to), but is typed. */
export type RestHookEvent = RestHookBody['event'] | 'submission.erased';

/** What a `rest-hook` body says: the event, its form, and the submission (without content once deleted). */
export interface RestHookBodyInput<E extends RestHookEvent> {
  event: E;
  form: { id: string; name: string };
  submission: { id: string; createdAt: string };
  /** The submission's content; null for a deletion. */
  content: { fields: readonly SubmissionField[]; files: readonly z.infer<typeof RestHookFileSchema>[] } | null;
}

/**
 * A submission's fields as one object: the value of a name given once, the values of a repeated name in order.
 * Names are data (`__proto__` included): `Object.fromEntries` defines own properties, it never sets a prototype.
 */
export function restHookFields(fields: readonly SubmissionField[]): RestHookBody['fields'] {
  const byName = new Map<string, string[]>();
  for (const { name, value } of fields) {
    const values = byName.get(name);
    if (values) values.push(value);
    else byName.set(name, [value]);
  }
  return Object.fromEntries(
    [...byName].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]),
  );
}

/** The `rest-hook` body: the same for a delivery (notifications) and for the sample (forms). */
export function buildRestHookBody<E extends RestHookEvent>(
  input: RestHookBodyInput<E>,
): Omit<RestHookBody, 'event'> & { event: E } {
  const { content } = input;
  return {
    id: input.submission.id,
    event: input.event,
    createdAt: input.submission.createdAt,
    form: { id: input.form.id, name: input.form.name },
    fields: content ? restHookFields(content.fields) : {},
    files: (content?.files ?? []).map(({ field, filename, contentType, size }) => ({
      field,
      filename,
      contentType,
      size,
    })),
  };
}
