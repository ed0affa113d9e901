import { authorize, type PermissionRequest } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../lib/app-context.tsx';
import { activeMemberQuery } from '../session/session.queries.ts';

/**
 * What the signed-in member's role allows in the active organization, by the contracts' access model: screens hide
 * the actions it does not. Until the member is known nothing is allowed. The server checks again; its denial is
 * toasted as it words it.
 */
export function useCan() {
  const member = useQuery(activeMemberQuery(useServices()));
  const role = member.data?.role ?? null;
  return {
    role,
    isPending: member.isPending,
    can: (request: PermissionRequest) => role !== null && authorize([role], request).success,
  };
}
