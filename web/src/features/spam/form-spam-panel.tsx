import { resolveSpamSettings } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Notice } from '../../components/ui.tsx';
import { useUpdateFormSpam } from '../forms/forms.mutations.ts';
import type { FormDto } from '../forms/forms.queries.ts';
import { orgSettingsQuery } from '../organization/organization.queries.ts';
import type { SpamSettingsRead } from './spam-settings.ts';
import { SpamSettingsForm } from './spam-settings-form.tsx';

/**
 * The form settings' "Spam protection" panel (issue 14): the form's own `settings.spam`, each key either the form's
 * or the organization's default (shown while inherited). Saved on its own: the PATCH carries `settings.spam` only.
 */
export function FormSpamPanel({ form, canUpdate }: { form: FormDto; canUpdate: boolean }) {
  const headingId = useId();
  const org = useQuery(orgSettingsQuery());
  // Until the organization's defaults are known, the built-in ones are shown for inherited keys.
  const inherited = resolveSpamSettings(org.data?.spam ?? null, null);
  const save = useUpdateFormSpam(form.id);
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-4">
      <div className="flex flex-col gap-1">
        <h2 id={headingId} className="text-lg font-semibold">
          Spam protection
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Every verdict is recorded with its reasons; spam is stored (never lost), not notified and not billed, and can
          be released with "Not spam".
        </p>
      </div>
      {org.isError ? (
        <Notice tone="error">The organization's defaults could not be loaded; the built-in ones are shown.</Notice>
      ) : null}
      <SpamSettingsForm
        own={form.settings.spam as SpamSettingsRead | null}
        inherited={inherited}
        inheritLabel="Use the organization’s default"
        allowedOrigins={form.settings.allowedOrigins}
        canUpdate={canUpdate}
        submitLabel="Save spam protection"
        saving={save.isPending}
        onSave={(spam) => save.mutate(spam)}
      />
    </section>
  );
}
