import type {
  ApiKeyDto,
  CreateApiKeyRequest,
  CreatedApiKeyDto,
  OrgSettings,
  OrgSettingsDto,
} from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';
import type { SpamSettingsRequest } from '../spam/spam-settings.ts';

export type { OrgSettingsDto };

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

/** → the new key, the only answer that carries it. */
export const createApiKey = (body: CreateApiKeyRequest) =>
  apiFetch<CreatedApiKeyDto>('/api/v1/api-keys', { method: 'POST', json: body });

export const revokeApiKey = (keyId: string) =>
  apiFetch<void>(`/api/v1/api-keys/${encodeURIComponent(keyId)}`, { method: 'DELETE' });

/** The active organization's settings (`GET /api/v1/orgs/settings`). */
export const orgSettingsQuery = () =>
  queryOptions({
    queryKey: organizationKeys.settings,
    queryFn: () => apiFetch<OrgSettingsDto>('/api/v1/orgs/settings'),
  });

/** `PATCH /api/v1/orgs/settings` with the spec's keys (the features switches). */
export const updateOrgSettings = (body: OrgSettings) =>
  apiFetch<OrgSettingsDto>('/api/v1/orgs/settings', { method: 'PATCH', json: body });

/** `PATCH /api/v1/orgs/settings` with only `spam`: the organization's whole set of spam defaults, `null` for none. */
export const updateOrgSpamDefaults = (spam: SpamSettingsRequest | null) =>
  apiFetch<OrgSettingsDto>('/api/v1/orgs/settings', { method: 'PATCH', json: { spam } });

export const teamMembersQuery = ({ auth }: AppServices, teamId: string) =>
  queryOptions({
    queryKey: organizationKeys.teamMembers(teamId),
    queryFn: async () => unwrap(await auth.organization.listTeamMembers({ query: { teamId } })) ?? [],
  });
