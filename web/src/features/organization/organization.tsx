import { useQuery } from '@tanstack/react-query';
import { Notice } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import { activeOrganizationQuery } from '../session/session.queries.ts';
import { useSession } from '../session/use-session.ts';
import { SpamDefaults } from '../spam/spam-defaults.tsx';
import { ApiKeys } from './api-keys.tsx';
import { Members } from './members.tsx';
import { OrganizationSettings } from './organization-settings.tsx';
import { Teams } from './teams.tsx';
import { useCan } from './use-can.ts';

/**
 * `/dashboard/organization`: the active organization's members, invitations, teams, API keys and settings. Each
 * action shows only when the member's role grants it (contracts' `authorize`); the server checks again and its
 * denial message is toasted.
 */
export function OrganizationScreen() {
  const services = useServices();
  const session = useSession();
  const organization = useQuery(activeOrganizationQuery(services));
  const access = useCan();
  if (organization.isPending || access.isPending) return <p>Loading…</p>;
  if (organization.isError || !organization.data)
    return <Notice tone="error">The organization could not be loaded.</Notice>;
  const org = organization.data;
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold break-words">{org.name}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Your role: <span className="font-medium">{access.role ?? 'none'}</span>
        </p>
      </div>
      <Members organization={org} currentUserId={session.data?.user.id ?? ''} can={access.can} />
      <Teams organization={org} can={access.can} />
      {access.can({ apiKey: ['read'] }) ? <ApiKeys can={access.can} /> : null}
      <OrganizationSettings organization={org} can={access.can} />
      <SpamDefaults canUpdate={access.can({ organization: ['update'] })} />
    </div>
  );
}
