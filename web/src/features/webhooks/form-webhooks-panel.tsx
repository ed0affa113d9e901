import {
  CreatableWebhookKindSchema,
  MAX_WEBHOOK_URL_LENGTH,
  type WebhookEndpointDto,
  type WebhookEndpointWithSecretDto,
  type WebhookEventType,
  WebhookEventTypeSchema,
  type WebhookKind,
} from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useForm as useHookForm } from 'react-hook-form';
import { z } from 'zod';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { SelectField } from '../../components/panel.tsx';
import { SecretOnce } from '../../components/secret-once.tsx';
import { Button, Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import type { FormDto } from '../forms/forms.queries.ts';
import { useCreateWebhook, useDeleteWebhook, useRotateWebhookSecret, useUpdateWebhook } from './webhooks.mutations.ts';
import { successText, webhooksQuery } from './webhooks.queries.ts';

const EVENT_LABELS: Record<WebhookEventType, string> = {
  'submission.created': 'New submission',
  'submission.spam': 'Spam',
  'submission.deleted': 'Deleted submission',
};
const KIND_LABELS: Record<WebhookKind, string> = {
  standard: 'Standard Webhooks (signed JSON)',
  slack: 'Slack',
  discord: 'Discord',
  // Made by Zapier, Make or n8n through `/api/v1/hooks`, never from this form.
  'rest-hook': 'REST hook (Zapier, Make, n8n)',
};

/** The add form's fields. */
export const WebhookFormSchema = z.object({
  url: z
    .string()
    .trim()
    .max(MAX_WEBHOOK_URL_LENGTH, 'At most 2,000 characters')
    .refine((v) => /^https?:\/\/[^/\s]+/i.test(v), { error: 'An http:// or https:// address' }),
  kind: CreatableWebhookKindSchema,
  events: z.array(WebhookEventTypeSchema).min(1, 'Choose at least one event'),
});
export type WebhookFormValues = z.infer<typeof WebhookFormSchema>;

/**
 * The form settings' "Webhooks" panel: the endpoints (URL, kind, events, state, recent success rate), and for
 * owners and admins adding one, rotating its secret, enabling or disabling it and deleting it. A new secret is shown
 * once, with a copy button.
 */
export function FormWebhooksPanel({ form, canUpdate }: { form: FormDto; canUpdate: boolean }) {
  const headingId = useId();
  const list = useQuery(webhooksQuery(form.id));
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const showSecret = (e: WebhookEndpointWithSecretDto) => setSecret({ url: e.url, secret: e.secret });
  const update = useUpdateWebhook(form.id);
  const rotate = useRotateWebhookSecret(form.id, { onSuccess: showSecret });
  const remove = useDeleteWebhook(form.id);

  return (
    <section aria-labelledby={headingId} className="flex min-w-0 flex-col gap-4">
      <div className="flex flex-col gap-1">
        <h2 id={headingId} className="text-lg font-semibold">
          Webhooks
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Formgate POSTs each event to these URLs, signed (Standard Webhooks), retried for about a day when they fail.
        </p>
      </div>
      {canUpdate ? null : <Notice>Only owners and admins of the organization can change webhooks.</Notice>}
      {secret ? <NewSecret {...secret} onDone={() => setSecret(null)} /> : null}
      {list.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : list.isError ? (
        <Notice tone="error">The webhooks could not be loaded.</Notice>
      ) : list.data.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No webhook yet.</p>
      ) : (
        <ul className="flex flex-col gap-3">
          {list.data.map((e) => (
            <EndpointItem
              key={e.id}
              endpoint={e}
              canUpdate={canUpdate}
              pending={update.isPending || rotate.isPending || remove.isPending}
              onToggle={() => update.mutate({ id: e.id, body: { enabled: !e.enabled } })}
              onRotate={() => rotate.mutate(e.id)}
              onDelete={() => remove.mutate(e.id)}
            />
          ))}
        </ul>
      )}
      {canUpdate ? <AddWebhook formId={form.id} onCreated={showSecret} /> : null}
    </section>
  );
}

function EndpointItem(props: {
  endpoint: WebhookEndpointDto;
  canUpdate: boolean;
  pending: boolean;
  onToggle: () => void;
  onRotate: () => void;
  onDelete: () => void;
}) {
  const e = props.endpoint;
  const urlId = useId();
  return (
    <li
      aria-labelledby={urlId}
      className="flex min-w-0 flex-col gap-2 rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
    >
      <p id={urlId} className="font-mono break-all">
        {e.url}
      </p>
      <p className="text-zinc-700 dark:text-zinc-300">
        {KIND_LABELS[e.kind]} · {e.events.map((t) => EVENT_LABELS[t]).join(', ')}
      </p>
      <p className={e.enabled ? 'text-green-800 dark:text-green-300' : 'text-amber-900 dark:text-amber-200'}>
        {e.enabled ? 'Enabled' : e.disabledReason ? `Disabled: ${e.disabledReason}` : 'Disabled'}
      </p>
      <p className="text-zinc-600 dark:text-zinc-400">
        {successText(e.stats)} · secret ending in <span className="font-mono">{e.secretHint}</span>
      </p>
      {props.canUpdate ? (
        <div className="flex flex-wrap gap-2">
          <Button
            variant="secondary"
            disabled={props.pending}
            onClick={props.onToggle}
            aria-label={`${e.enabled ? 'Disable' : 'Enable'} webhook ${e.url}`}
          >
            {e.enabled ? 'Disable' : 'Enable'}
          </Button>
          <Button
            variant="secondary"
            disabled={props.pending}
            onClick={props.onRotate}
            aria-label={`Rotate the secret of ${e.url}`}
          >
            Rotate secret
          </Button>
          <ConfirmDialog
            trigger="Delete"
            triggerLabel={`Delete webhook ${e.url}`}
            triggerVariant="secondary"
            title="Delete this webhook?"
            description={
              <p>
                <span className="font-mono break-all">{e.url}</span> receives nothing more; deliveries still being
                retried fail.
              </p>
            }
            confirmLabel="Delete webhook"
            pending={props.pending}
            onConfirm={props.onDelete}
          />
        </div>
      ) : null}
    </li>
  );
}

function AddWebhook({ formId, onCreated }: { formId: string; onCreated: (e: WebhookEndpointWithSecretDto) => void }) {
  const fields = useHookForm<WebhookFormValues>({
    resolver: zodResolver(WebhookFormSchema),
    defaultValues: { url: '', kind: 'standard', events: ['submission.created'] },
  });
  const create = useCreateWebhook(formId, {
    onSuccess: (e) => {
      fields.reset();
      onCreated(e);
    },
  });
  const errors = fields.formState.errors;
  return (
    <form
      noValidate
      aria-label="Add a webhook"
      className="flex flex-col gap-3"
      onSubmit={fields.handleSubmit((v) => create.mutate(v))}
    >
      <h3 className="font-medium">Add a webhook</h3>
      <TextField
        label="Endpoint URL"
        type="url"
        placeholder="https://example.com/formgate-hook"
        {...fieldOf(fields, 'url')}
      />
      <SelectField label="Format" {...fields.register('kind')}>
        {CreatableWebhookKindSchema.options.map((k) => (
          <option key={k} value={k}>
            {KIND_LABELS[k]}
          </option>
        ))}
      </SelectField>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Events</legend>
        {WebhookEventTypeSchema.options.map((t) => (
          <label key={t} className="flex items-center gap-3 text-sm">
            <input type="checkbox" className="size-4" value={t} {...fields.register('events')} />
            {EVENT_LABELS[t]} <code className="text-xs text-zinc-600 dark:text-zinc-400">{t}</code>
          </label>
        ))}
        {errors.events ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {errors.events.message}
          </p>
        ) : null}
      </fieldset>
      <div>
        <SubmitButton pending={create.isPending} pendingLabel="Adding…">
          Add webhook
        </SubmitButton>
      </div>
    </form>
  );
}

function NewSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <SecretOnce
      label="Your webhook signing secret"
      secret={secret}
      warning="Copy this signing secret now: it is shown only once. Your endpoint uses it to check that requests come from Formgate."
      copyLabel="Copy secret"
      copied="Signing secret copied"
      copyFailed="Copying failed: select the secret and copy it yourself"
      onDone={onDone}
    >
      <p className="break-all text-amber-900 dark:text-amber-100">
        For <span className="font-mono">{url}</span>
      </p>
    </SecretOnce>
  );
}
