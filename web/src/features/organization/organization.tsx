import { useSession } from '../session/use-session.ts';
import { SpamDefaults } from '../spam/spam-defaults.tsx';
import { ApiKeys } from './api-keys.tsx';
import { Members } from './members.tsx';
import { useOrganization } from './organization-layout.tsx';
import { OrganizationSettings } from './organization-settings.tsx';
import { Teams } from './teams.tsx';
import { useCan } from './use-can.ts';

/**
 * `/dashboard/organization`: the active organization's members, invitations, teams, API keys and settings. Each
 * action shows only when the member's role grants it (contracts' `authorize`); the server checks again and its
 * denial message is toasted.
 */
export function OrganizationScreen() {
  const org = useOrganization();
  const session = useSession();
  const access = useCan();
  return (
    <div className="flex flex-col gap-6">
      <Members organization={org} currentUserId={session.data?.user.id ?? ''} can={access.can} />
      <Teams organization={org} can={access.can} />
      {access.can({ apiKey: ['read'] }) ? <ApiKeys can={access.can} /> : null}
      <OrganizationSettings organization={org} can={access.can} />
      <SpamDefaults canUpdate={access.can({ organization: ['update'] })} />
    </div>
  );
}
