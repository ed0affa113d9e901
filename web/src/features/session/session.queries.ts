import { queryOptions } from '@tanstack/react-query';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';
import {
  activeMemberKey,
  activeOrganizationKey,
  organizationListKey,
  sessionKey,
} from '../../lib/auth-invalidation.ts';

export interface SessionData {
  user: { id: string; email: string; name: string; emailVerified: boolean };
  /** `token` tells the current session apart in the list of the user's sessions. */
  session: { activeOrganizationId?: string | null; token?: string };
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
