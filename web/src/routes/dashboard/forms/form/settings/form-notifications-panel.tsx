import { type FormNotifications, FormNotificationsSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm as useHookForm } from 'react-hook-form';
import { Link } from 'react-router';
import { z } from 'zod';
import { fieldOf } from '../../../../../components/form-field.ts';
import { CheckboxField, Notice, SubmitButton, TextAreaField, TextField } from '../../../../../components/ui.tsx';
import { useUpdateFormNotifications } from '../../../../../features/forms/forms.mutations.ts';
import type { FormDto } from '../../../../../features/forms/forms.queries.ts';
import { notificationEmailsQuery } from '../../../../../features/notifications/notification-emails.queries.ts';

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
  const emails = useQuery(notificationEmailsQuery());
  const headingId = useId();
  const fields = useHookForm<NotificationsFormValues>({
    resolver: zodResolver(NotificationsFormSchema),
    values: valuesOf(form.settings.notifications),
  });
  const save = useUpdateFormNotifications(form.id);
  const chosen = fields.watch('emails');
  const verified = (emails.data ?? []).filter((e) => e.verified).map((e) => e.email);
  // Chosen before and no longer verified (removed since): shown so they can be unticked; they get no mail.
  const stale = chosen.filter((e) => !verified.includes(e));
  const toggle = (email: string, on: boolean) =>
    fields.setValue('emails', on ? [...chosen, email] : chosen.filter((e) => e !== email), { shouldDirty: true });
  const errors = fields.formState.errors;

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-4">
      <h2 id={headingId} className="text-lg font-semibold">
        Notifications
      </h2>
      <form
        noValidate
        className="flex flex-col gap-4"
        onSubmit={fields.handleSubmit((v) => save.mutate(notificationsRequestOf(v)))}
      >
        <fieldset disabled={!canUpdate} className="flex min-w-0 flex-col gap-4">
          <CheckboxField
            role="switch"
            aria-checked={fields.watch('enabled')}
            label="Email new submissions"
            {...fields.register('enabled')}
          />
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
            {errors.emails ? (
              <p role="alert" className="text-sm text-red-700 dark:text-red-400">
                At most 20 recipients.
              </p>
            ) : null}
            <Link to="/dashboard/emails/create" className="text-sm text-brand-600 underline dark:text-brand-50">
              Add a notification email
            </Link>
          </fieldset>
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
          <div>
            <SubmitButton pending={save.isPending} pendingLabel="Saving…" disabled={!canUpdate}>
              Save notifications
            </SubmitButton>
          </div>
        </fieldset>
      </form>
    </section>
  );
}
