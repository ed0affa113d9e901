import { DEFAULT_SPAM_SETTINGS } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Panel } from '../../../components/panel.tsx';
import { Notice, SubmitButton } from '../../../components/ui.tsx';
import { useUpdateOrgSpamDefaults } from '../../../features/organization/organization.mutations.ts';
import { orgSettingsQuery } from '../../../features/organization/organization.queries.ts';
import {
  SpamFormSchema,
  type SpamFormValues,
  spamRequestOf,
  spamValuesOf,
} from '../../../features/spam/spam-settings.ts';
import { SpamSettingsFields } from '../../../features/spam/spam-settings-fields.tsx';

/**
 * The organization's spam defaults (issue 14, `spam` of `/api/v1/orgs/settings`): what every form of the
 * organization uses for the keys it does not set itself. Owners and admins edit; members read.
 */
export function SpamDefaults({ canUpdate }: { canUpdate: boolean }) {
  const settings = useQuery(orgSettingsQuery());
  const fields = useForm<SpamFormValues>({
    resolver: zodResolver(SpamFormSchema),
    values: spamValuesOf(settings.data?.spam ?? null, DEFAULT_SPAM_SETTINGS),
  });
  const save = useUpdateOrgSpamDefaults();
  return (
    <Panel
      title="Spam protection defaults"
      description="Every form uses these for the settings it does not set itself."
    >
      {settings.isPending ? <p role="status">Loading…</p> : null}
      {settings.isError ? <Notice tone="error">The organization's settings could not be loaded.</Notice> : null}
      {settings.data ? (
        <form
          noValidate
          className="flex flex-col gap-4"
          onSubmit={fields.handleSubmit((v) => save.mutate(spamRequestOf(v)))}
        >
          {canUpdate ? null : <Notice>Only owners and admins of the organization can change its defaults.</Notice>}
          <fieldset disabled={!canUpdate} className="flex min-w-0 flex-col gap-4">
            <SpamSettingsFields
              fields={fields}
              inherited={DEFAULT_SPAM_SETTINGS}
              inheritLabel="Use the built-in default"
            />
            <div>
              <SubmitButton
                pending={save.isPending}
                pendingLabel="Saving…"
                disabled={!canUpdate || !fields.formState.isDirty}
              >
                Save spam defaults
              </SubmitButton>
            </div>
          </fieldset>
        </form>
      ) : null}
    </Panel>
  );
}
