import { DEFAULT_SPAM_SETTINGS } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { useUpdateOrgSpamDefaults } from '../organization/organization.mutations.ts';
import { orgSettingsQuery } from '../organization/organization.queries.ts';
import { SpamSettingsForm } from './spam-settings-form.tsx';

/**
 * The organization's spam defaults (issue 14, `spam` of `/api/v1/orgs/settings`): what every form of the
 * organization uses for the keys it does not set itself. Owners and admins edit; members read.
 */
export function SpamDefaults({ canUpdate }: { canUpdate: boolean }) {
  const settings = useQuery(orgSettingsQuery());
  const save = useUpdateOrgSpamDefaults();
  return (
    <Panel
      title="Spam protection defaults"
      description="Every form uses these for the settings it does not set itself."
    >
      {settings.isPending ? <p role="status">Loading…</p> : null}
      {settings.isError ? <Notice tone="error">The organization's settings could not be loaded.</Notice> : null}
      {settings.data ? (
        <SpamSettingsForm
          own={settings.data.spam ?? null}
          inherited={DEFAULT_SPAM_SETTINGS}
          inheritLabel="Use the built-in default"
          canUpdate={canUpdate}
          notice={
            canUpdate ? null : <Notice>Only owners and admins of the organization can change its defaults.</Notice>
          }
          submitLabel="Save spam defaults"
          saving={save.isPending}
          onSave={(spam) => save.mutate(spam)}
        />
      ) : null}
    </Panel>
  );
}
