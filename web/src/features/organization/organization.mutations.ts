import type {
  CreateOrganizationRequest,
  InviteMemberRequest,
  OrgSettings,
  UpdateOrganizationRequest,
} from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { sessionKey } from '../../lib/auth-invalidation.ts';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { flagQuery } from '../flags/flags.queries.ts';
import { formsKeys } from '../forms/forms.queries.ts';
import type { SpamSettingsRequest } from '../spam/spam-settings.ts';
import { organizationKeys, updateOrgSettings, updateOrgSpamDefaults } from './organization.queries.ts';

/*
 * The organization's mutations. better-auth's calls refresh the session and organization queries by themselves
 * (`lib/auth-invalidation.ts`); these hooks add what that does not know: the API's settings, flags and forms.
 */

/** Name and slug. */
export function useUpdateOrganization(organizationId: string) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (data: UpdateOrganizationRequest) =>
      unwrap(await auth.organization.update({ organizationId, data })),
    onSuccess: () => toast.success('Organization saved'),
  });
}

/**
 * The setting "members must use two-factor authentication". The server refuses to turn it on for someone who has
 * not set two-factor up (`TWO_FACTOR_NOT_SET_UP`): the panel shows that refusal itself, not as a toast.
 */
export function useRequireTwoFactor(organizationId: string) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (requireTwoFactor: boolean) =>
      unwrap(await auth.organization.update({ organizationId, data: { requireTwoFactor } })),
    meta: { toast: false },
    onSuccess: (_data, required) =>
      toast.success(
        required ? 'Members must now use two-factor authentication' : 'Two-factor authentication is no longer required',
      ),
  });
}

/** The features switches (`email_management`); the flags they drive are asked again. */
export function useUpdateOrgFeatures() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: OrgSettings) => updateOrgSettings(body),
    onSuccess: async (saved) => {
      queryClient.setQueryData(organizationKeys.settings, saved);
      await queryClient.invalidateQueries({ queryKey: flagQuery('emailManagement').queryKey });
    },
  });
}

/** The organization's whole set of spam defaults, `null` for none. */
export function useUpdateOrgSpamDefaults() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (spam: SpamSettingsRequest | null) => updateOrgSpamDefaults(spam),
    onSuccess: async (saved) => {
      toast.success('Spam defaults saved');
      queryClient.setQueryData(organizationKeys.settings, saved);
      // The forms' settings screens show these defaults for the keys they inherit.
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}

/** Deletes the organization; the screen's step (leaving for onboarding) runs once the session is fresh. */
export function useDeleteOrganization(org: { id: string; name: string }, step: ScreenStep<void> = {}) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      unwrap(await auth.organization.delete({ organizationId: org.id }));
    },
    onSuccess: async () => {
      toast.success(`${org.name} was deleted`);
      // better-auth clears the session's active organization: the guard then leads to onboarding.
      await queryClient.invalidateQueries({ queryKey: sessionKey });
      step.onSuccess?.(undefined, undefined);
    },
  });
}

/** Makes another organization the active one; everything cached belonged to the previous one. */
export function useSetActiveOrganization(step: ScreenStep<void, string> = {}) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (organizationId: string) => {
      unwrap(await auth.organization.setActive({ organizationId }));
    },
    onSuccess: async (_data, organizationId) => {
      await queryClient.invalidateQueries();
      step.onSuccess?.(undefined, organizationId);
    },
  });
}

export function useUpdateMemberRole() {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (v: { memberId: string; role: string }) =>
      unwrap(await auth.organization.updateMemberRole({ memberId: v.memberId, role: v.role as 'member' })),
    onSuccess: () => toast.success('Role changed'),
  });
}

export function useRemoveMember() {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (memberId: string) => unwrap(await auth.organization.removeMember({ memberIdOrEmail: memberId })),
    onSuccess: () => toast.success('Member removed'),
  });
}

/** Sends an invitation; the screen's step (clearing its fields) runs before the toast. */
export function useInviteMember(step: ScreenStep<unknown, InviteMemberRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (v: InviteMemberRequest) =>
      unwrap(await auth.organization.inviteMember({ email: v.email, role: v.role })),
    onSuccess: (data, v) => {
      step.onSuccess?.(data, v);
      toast.success(`Invitation sent to ${v.email}`);
    },
  });
}

export function useCancelInvitation() {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (invitationId: string) => unwrap(await auth.organization.cancelInvitation({ invitationId })),
    onSuccess: () => toast.success('Invitation canceled'),
  });
}

/** Joins the organization of an invitation and makes it the active one (which refreshes the session). */
export function useAcceptInvitation(step: ScreenStep<void, string> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (invitationId: string) => {
      const accepted = unwrap(await auth.organization.acceptInvitation({ invitationId }));
      unwrap(await auth.organization.setActive({ organizationId: accepted.invitation.organizationId }));
    },
    onSuccess: (_data, invitationId) => step.onSuccess?.(undefined, invitationId),
  });
}

/** A slug better-auth accepts, unique enough that two "Acme"s do not collide. */
const slugOf = (name: string) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'org'
  }-${Math.random().toString(36).slice(2, 8)}`;

/** Creates an organization and makes it the active one. */
export function useCreateOrganization() {
  const { auth } = useServices();
  return useMutation({
    // better-auth makes the new organization active on the server, but only set-active refreshes the session
    // here (spec §4), which is what moves the user on to the dashboard.
    mutationFn: async ({ name }: CreateOrganizationRequest) => {
      const created = unwrap(await auth.organization.create({ name, slug: slugOf(name) }));
      unwrap(await auth.organization.setActive({ organizationId: created.id }));
    },
  });
}
