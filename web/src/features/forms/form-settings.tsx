import { CreateFormRequestSchema, FormSettingsSchema, type UpdateFormRequest } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import type { UseFormReturn } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { formatDateTime, Panel, Section } from '../../components/panel.tsx';
import { SettingsForm, useSettingsForm } from '../../components/settings-form.tsx';
import { CheckboxField, Notice, TextAreaField, TextField } from '../../components/ui.tsx';
import { FormNotificationsPanel } from '../notifications/form-notifications-panel.tsx';
import { useCan } from '../organization/use-can.ts';
import { checkRetentionChoice, daysOf, inForceSentence, retentionDaysOf } from '../privacy/retention.ts';
import { RetentionChoice } from '../privacy/retention-choice.tsx';
import { FormSpamPanel } from '../spam/form-spam-panel.tsx';
import { FormWebhooksPanel } from '../webhooks/form-webhooks-panel.tsx';
import { FormFilesPanel } from './form-files-panel.tsx';
import { useForm } from './form-layout.tsx';
import { useDeleteForm, useUpdateForm } from './forms.mutations.ts';
import { type FormDto, formRetentionQuery } from './forms.queries.ts';

const originsOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The settings screen's fields, each checked by the contracts' own schema for it. */
const SettingsFields = z.object({
  name: CreateFormRequestSchema.shape.name,
  redirectUrl: z
    .string()
    .trim()
    .refine((v) => v === '' || FormSettingsSchema.shape.redirectUrl.safeParse(v).success, {
      error: 'An http:// or https:// address, or nothing for Formgate’s thank-you page',
    }),
  /** One origin a line. */
  allowedOrigins: z
    .string()
    .refine((text) => FormSettingsSchema.shape.allowedOrigins.safeParse(originsOf(text)).success, {
      error: 'At most 50 origins of at most 200 characters each',
    }),
  honeypotField: z.string().trim().max(100, 'At most 100 characters'),
  enabled: z.boolean(),
  /** The organization's default (`other`) or the form's own number of days, as typed. */
  retention: z.enum(['other', 'days']),
  retentionDays: z.string(),
  /** Whether the form keeps its submissions (`store`) or only their metadata once delivered (`metadata`). */
  storage: z.enum(['store', 'metadata']),
});
/** The fields, and the retention's days when the form keeps its own (checked once every field is well formed). */
export const SettingsFormSchema = SettingsFields.superRefine((v, ctx) =>
  checkRetentionChoice(v.retention, v.retentionDays, ctx, 'retentionDays'),
);
export type SettingsFormValues = z.infer<typeof SettingsFormSchema>;

const valuesOf = (form: FormDto): SettingsFormValues => ({
  name: form.name,
  redirectUrl: form.settings.redirectUrl ?? '',
  allowedOrigins: form.settings.allowedOrigins.join('\n'),
  honeypotField: form.settings.honeypotField ?? '',
  enabled: form.settings.enabled,
  retention: form.settings.retentionDays === null ? 'other' : 'days',
  retentionDays: form.settings.retentionDays === null ? '' : String(form.settings.retentionDays),
  storage: form.settings.storeContent === false ? 'metadata' : 'store',
});

/** The `PATCH /api/v1/forms/{formId}` body of the screen's values. */
export const requestOf = (values: SettingsFormValues): UpdateFormRequest => ({
  name: values.name,
  settings: {
    redirectUrl: values.redirectUrl || null,
    allowedOrigins: originsOf(values.allowedOrigins),
    honeypotField: values.honeypotField || null,
    enabled: values.enabled,
    retentionDays: retentionDaysOf(values.retention, values.retentionDays),
    storeContent: values.storage === 'store',
  },
});

/** `/dashboard/forms/{formSlug}/settings`: name, redirect, origins, honeypot, enabled, retention, storage; file uploads; spam protection; notifications; webhooks; deleting the form. */
export function FormSettingsScreen() {
  const form = useForm();
  const { can } = useCan();
  const canUpdate = can({ form: ['update'] });
  return (
    <div className="flex max-w-2xl flex-col gap-10">
      <GeneralSettings form={form} canUpdate={canUpdate} />
      <FormFilesPanel form={form} canUpdate={canUpdate} />
      <FormSpamPanel form={form} canUpdate={canUpdate} />
      <FormNotificationsPanel form={form} canUpdate={canUpdate} />
      <FormWebhooksPanel form={form} canUpdate={canUpdate} />
      {can({ form: ['delete'] }) ? <DeleteForm form={form} /> : null}
    </div>
  );
}

function GeneralSettings({ form, canUpdate }: { form: FormDto; canUpdate: boolean }) {
  const fields = useSettingsForm<SettingsFormValues>(SettingsFormSchema, valuesOf(form));
  const save = useUpdateForm(form.id);
  return (
    <SettingsForm
      fields={fields}
      onSave={(v) => save.mutate(requestOf(v))}
      saving={save.isPending}
      submitLabel="Save settings"
      canUpdate={canUpdate}
      notice={
        <>
          <h2 className="text-lg font-semibold">Settings</h2>
          {canUpdate ? null : <Notice>Only owners and admins of the organization can change a form.</Notice>}
        </>
      }
    >
      <TextField
        label="Name"
        error={fields.formState.errors.name ? 'Give the form a name (at most 200 characters).' : undefined}
        {...fields.register('name')}
      />
      <div className="flex flex-col gap-1.5">
        <p className="text-sm font-medium">
          Slug <code className="ml-2 rounded bg-zinc-100 px-2 py-1 font-normal dark:bg-zinc-800">{form.slug}</code>
        </p>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Set when the form was created; it cannot be changed.</p>
      </div>
      <TextField
        label="Redirect URL"
        type="url"
        placeholder="https://example.com/thanks"
        hint="Where an HTML form goes after a submission; empty for Formgate’s thank-you page."
        {...fieldOf(fields, 'redirectUrl')}
      />
      <TextAreaField
        mono
        label="Allowed origins"
        placeholder="https://example.com"
        hint="One origin (scheme://host[:port]) a line."
        {...fieldOf(fields, 'allowedOrigins')}
      />
      <TextField
        label="Honeypot field"
        placeholder="_gotcha"
        hint="A hidden field of your form that people leave empty; a submission that fills it is spam."
        {...fieldOf(fields, 'honeypotField')}
      />
      <CheckboxField label="Accept submissions" {...fields.register('enabled')} />
      <RetentionSettings form={form} fields={fields} />
      <StorageSettings fields={fields} />
    </SettingsForm>
  );
}

/**
 * The form's retention (issue 31), saved with the other settings: the organization's default or its own number of
 * days; beneath it, what is in force (`GET /api/v1/forms/{formId}/retention`, refreshed after every save).
 */
function RetentionSettings({ form, fields }: { form: FormDto; fields: UseFormReturn<SettingsFormValues> }) {
  const retention = useQuery(formRetentionQuery(form.id));
  const planMaxDays = retention.data?.planMaxDays ?? null;
  return (
    <Section title="Retention" level={3} className="flex flex-col gap-3">
      <RetentionChoice
        legend="Keep this form's submissions"
        otherLabel="Organization default"
        daysLabel="Keep for a number of days"
        mode={fields.register('retention')}
        daysField={fieldOf(fields, 'retentionDays')}
        daysChosen={fields.watch('retention') === 'days'}
        hint={planMaxDays === null ? undefined : `At most ${daysOf(planMaxDays)} on your plan.`}
      />
      {retention.isPending ? <p className="text-sm">Loading…</p> : null}
      {retention.isError ? <Notice tone="error">The retention in force could not be loaded.</Notice> : null}
      {retention.data ? (
        <div className="flex flex-col gap-1 text-sm text-zinc-600 dark:text-zinc-400">
          <p>{inForceSentence(retention.data)}</p>
          {retention.data.nextDeletionAt ? (
            <p>The oldest submission goes on {formatDateTime(retention.data.nextDeletionAt)}.</p>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}

/**
 * Whether the form stores its submissions (issue 31), saved with the other settings: a no-store form's submissions
 * are delivered, then keep only their metadata. What that means is spelled out while it is chosen.
 */
function StorageSettings({ fields }: { fields: UseFormReturn<SettingsFormValues> }) {
  const noStore = fields.watch('storage') === 'metadata';
  return (
    <Section title="Storage" level={3} className="flex flex-col gap-3">
      <fieldset className="flex min-w-0 flex-col gap-3">
        <legend className="mb-2 text-sm font-medium">Submissions of this form</legend>
        <label className="flex items-center gap-3 text-sm">
          <input type="radio" className="size-4" value="store" {...fields.register('storage')} />
          Store submissions
        </label>
        <label className="flex items-start gap-3 text-sm">
          <input type="radio" className="mt-0.5 size-4" value="metadata" {...fields.register('storage')} />
          Don't store submissions: deliver them, then keep only the time, spam verdict and delivery outcomes
        </label>
      </fieldset>
      {noStore ? (
        <Notice>
          <ul className="flex list-disc flex-col gap-1 pl-4">
            <li>Notification emails and webhooks still go out for every submission.</li>
            <li>
              Once every delivery of a submission has succeeded or failed for good, its fields and files are deleted;
              only its time, spam verdict and delivery outcomes are kept.
            </li>
            <li>Nothing can be exported.</li>
            <li>Held submissions keep their content until they are released and delivered, or deleted.</li>
          </ul>
        </Notice>
      ) : null}
    </Section>
  );
}

function DeleteForm({ form }: { form: FormDto }) {
  const navigate = useNavigate();
  const remove = useDeleteForm(form, { onSuccess: () => navigate('/dashboard/forms', { replace: true }) });
  return (
    <Panel title="Delete this form" tone="danger">
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Its endpoint stops accepting submissions, and every submission and file it received is deleted.
      </p>
      <div>
        <ConfirmDialog
          trigger="Delete form"
          title={`Delete "${form.name}"?`}
          description="This cannot be undone."
          confirmLabel="Delete form"
          typeToConfirm={form.name}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
    </Panel>
  );
}
