import { type FormNotifications, FormNotificationsSchema } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import type { UseFormReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { Section } from '../../components/panel.tsx';
import { SettingsForm, useSettingsForm } from '../../components/settings-form.tsx';
import { CheckboxField, Notice, TextAreaField, TextField } from '../../components/ui.tsx';
import { notificationEmailsQuery } from '../emails/notification-emails.queries.ts';
import { useUpdateFormNotifications } from '../forms/forms.mutations.ts';
import type { FormDto } from '../forms/forms.queries.ts';

/** The panel's fields; `subject` empty means the default subject. */
export const NotificationsFormSchema = z.object({
  enabled: z.boolean(),
  emails: FormNotificationsSchema.shape.emails,
  subject: z.string().trim().max(200, 'At most 200 characters'),
  autoresponse: z.object({
    enabled: z.boolean(),
    text: z.string().max(5_000, 'At most 5,000 characters'),
  }),
});
export type NotificationsFormValues = z.infer<typeof NotificationsFormSchema>;

const valuesOf = (n: FormNotifications): NotificationsFormValues => ({ ...n, subject: n.subject ?? '' });

/** The `settings.notifications` of a `PATCH /api/v1/forms/{formId}` for the panel's values. */
export const notificationsRequestOf = (v: NotificationsFormValues): FormNotifications => ({
  ...v,
  subject: v.subject.trim() || null,
});

/**
 * The form settings' "Notifications" panel: on/off, which verified notification emails receive the form's
 * submissions, the subject template, and the autoresponse. Saved on its own (`settings.notifications` is merged
 * key by key by the server, so it never resets the other settings).
 */
export function FormNotificationsPanel({ form, canUpdate }: { form: FormDto; canUpdate: boolean }) {
  const fields = useSettingsForm<NotificationsFormValues>(
    NotificationsFormSchema,
    valuesOf(form.settings.notifications),
  );
  const save = useUpdateFormNotifications(form.id);
  return (
    <Section title="Notifications" className="flex flex-col gap-4">
      <SettingsForm
        fields={fields}
        onSave={(v) => save.mutate(notificationsRequestOf(v))}
        saving={save.isPending}
        submitLabel="Save notifications"
        canUpdate={canUpdate}
      >
        <CheckboxField
          role="switch"
          aria-checked={fields.watch('enabled')}
          label="Email new submissions"
          {...fields.register('enabled')}
        />
        <Recipients fields={fields} />
        <TextField
          label="Subject"
          placeholder="New submission to {{form}}"
          hint="{{form}} becomes the form's name, {{subject}} the submission's _subject; empty for the default."
          {...fieldOf(fields, 'subject')}
        />
        <CheckboxField
          role="switch"
          aria-checked={fields.watch('autoresponse.enabled')}
          label="Send an autoresponse to the submitter"
          {...fields.register('autoresponse.enabled')}
        />
        <TextAreaField
          label="Autoresponse text"
          rows={4}
          hint="Sent as plain text to the address the submitter gave (never for spam)."
          {...fieldOf(fields, 'autoresponse.text')}
        />
      </SettingsForm>
    </Section>
  );
}

/** The verified notification emails to tick, and those ticked before that are no longer verified. */
function Recipients({ fields }: { fields: UseFormReturn<NotificationsFormValues> }) {
  const emails = useQuery(notificationEmailsQuery());
  const chosen = fields.watch('emails');
  const verified = (emails.data ?? []).filter((e) => e.verified).map((e) => e.email);
  // Chosen before and no longer verified (removed since): shown so they can be unticked; they get no mail.
  const stale = chosen.filter((e) => !verified.includes(e));
  const toggle = (email: string, on: boolean) =>
    fields.setValue('emails', on ? [...chosen, email] : chosen.filter((e) => e !== email), { shouldDirty: true });
  return (
    <fieldset className="flex min-w-0 flex-col gap-2">
      <legend className="mb-1 text-sm font-medium">Recipients</legend>
      {emails.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : emails.isError ? (
        <Notice tone="error">The notification emails could not be loaded.</Notice>
      ) : verified.length === 0 && stale.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No verified notification email yet.</p>
      ) : null}
      {[...verified, ...stale].map((email) => (
        <label key={email} className="flex min-w-0 items-center gap-3 text-sm">
          <input
            type="checkbox"
            className="size-4 shrink-0"
            checked={chosen.includes(email)}
            onChange={(e) => toggle(email, e.target.checked)}
          />
          <span className="break-all">{email}</span>
          {stale.includes(email) ? (
            <span className="text-xs text-amber-800 dark:text-amber-200">(not verified: receives nothing)</span>
          ) : null}
        </label>
      ))}
      {fields.formState.errors.emails ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          At most 20 recipients.
        </p>
      ) : null}
      <Link to="/dashboard/emails/create" className="text-sm text-brand-600 underline dark:text-brand-50">
        Add a notification email
      </Link>
    </fieldset>
  );
}
