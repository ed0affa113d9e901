import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';
import {
  activeMemberKey,
  activeOrganizationKey,
  organizationListKey,
  sessionKey,
} from '../../lib/auth-invalidation.ts';

export interface SessionData {
  /** `twoFactorEnabled`: true once a first code confirmed the set-up (better-auth's two-factor plugin). */
  user: { id: string; email: string; name: string; emailVerified: boolean; twoFactorEnabled?: boolean | null };
  /**
   * `token` tells the current session apart in the list of the user's sessions; `ssoOrganizationId` is the
   * organization whose identity provider started this session (single sign-on), null for any other sign-in.
   */
  session: { activeOrganizationId?: string | null; token?: string; ssoOrganizationId?: string | null };
}

/** The signed-in user, or `null` (`GET /api/auth/get-session`). */
export const sessionQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: sessionKey,
    queryFn: async (): Promise<SessionData | null> => unwrap(await auth.getSession()) as SessionData | null,
  });

export const organizationListQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: organizationListKey,
    queryFn: async () => unwrap(await auth.organization.list()) ?? [],
  });

export const activeOrganizationQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: activeOrganizationKey,
    queryFn: async () => unwrap(await auth.organization.getFullOrganization()),
  });

/** The active organization with its members, invitations and teams. */
export type FullOrganization = NonNullable<
  Awaited<ReturnType<ReturnType<typeof activeOrganizationQuery>['queryFn'] & {}>>
>;

export const activeMemberQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: activeMemberKey,
    queryFn: async () => unwrap(await auth.organization.getActiveMember()),
  });

/** The invitations sent to the signed-in user's address (onboarding offers the pending ones). */
export const userInvitationsQuery = ({ auth }: AppServices) =>
  queryOptions({
    queryKey: ['organization', 'user-invitations'],
    queryFn: async () => unwrap(await auth.organization.listUserInvitations()),
  });

/** Whether an account uses `email` (`GET /api/v1/users/by-email/{email}`, rate-limited: asked once). */
export const userExistsQuery = (email: string) =>
  queryOptions({
    queryKey: ['users', 'by-email', email],
    queryFn: () => apiFetch<{ exists: boolean }>(`/api/v1/users/by-email/${encodeURIComponent(email)}`),
    retry: false,
  });
