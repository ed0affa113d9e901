import type { ApiKeyDto, OrgSettings } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';

export const organizationKeys = {
  apiKeys: ['organization', 'api-keys'] as const,
  settings: ['organization', 'settings'] as const,
  teamMembers: (teamId: string) => ['organization', 'team-members', teamId] as const,
};

/** The active organization's API keys (never the keys themselves). */
export const apiKeysQuery = () =>
  queryOptions({
    queryKey: organizationKeys.apiKeys,
    queryFn: async () => (await apiFetch<{ data: ApiKeyDto[] }>('/api/v1/api-keys')).data,
  });

/** The active organization's settings (`GET /api/v1/orgs/settings`). */
export const orgSettingsQuery = () =>
  queryOptions({
    queryKey: organizationKeys.settings,
    queryFn: () => apiFetch<Required<OrgSettings>>('/api/v1/orgs/settings'),
  });

export const teamMembersQuery = ({ auth }: AppServices, teamId: string) =>
  queryOptions({
    queryKey: organizationKeys.teamMembers(teamId),
    queryFn: async () => unwrap(await auth.organization.listTeamMembers({ query: { teamId } })) ?? [],
  });
