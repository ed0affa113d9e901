import type { TeamNameRequest } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { organizationKeys } from './organization.queries.ts';

/* Teams, through better-auth (which refreshes the active organization, and with it the teams); a team's member list
   is this feature's own query. Each screen step runs before the toast. */

export function useCreateTeam(step: ScreenStep<unknown, TeamNameRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async ({ name }: TeamNameRequest) => unwrap(await auth.organization.createTeam({ name })),
    onSuccess: (data, v) => {
      step.onSuccess?.(data, v);
      toast.success(`Team ${v.name} created`);
    },
  });
}

export function useRenameTeam(teamId: string, step: ScreenStep<unknown, TeamNameRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async ({ name }: TeamNameRequest) =>
      unwrap(await auth.organization.updateTeam({ teamId, data: { name } })),
    onSuccess: (data, v) => {
      step.onSuccess?.(data, v);
      toast.success('Team renamed');
    },
  });
}

export function useDeleteTeam(team: { id: string; name: string }) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async () => unwrap(await auth.organization.removeTeam({ teamId: team.id })),
    onSuccess: () => toast.success(`Team ${team.name} deleted`),
  });
}

function useRefreshTeamMembers(teamId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: organizationKeys.teamMembers(teamId) });
}

/** Adds a member of the organization to the team; the screen's step runs before the list refreshes. */
export function useAddTeamMember(teamId: string, step: ScreenStep<unknown, string> = {}) {
  const { auth } = useServices();
  const refresh = useRefreshTeamMembers(teamId);
  return useMutation({
    mutationFn: async (userId: string) => unwrap(await auth.organization.addTeamMember({ teamId, userId })),
    onSuccess: async (data, userId) => {
      step.onSuccess?.(data, userId);
      await refresh();
    },
  });
}

export function useRemoveTeamMember(teamId: string) {
  const { auth } = useServices();
  const refresh = useRefreshTeamMembers(teamId);
  return useMutation({
    mutationFn: async (userId: string) => unwrap(await auth.organization.removeTeamMember({ teamId, userId })),
    onSuccess: refresh,
  });
}
