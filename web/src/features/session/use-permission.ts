import { authorize, type PermissionRequest } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../lib/app-context.tsx';
import { activeMemberQuery } from './session.queries.ts';

/**
 * Whether the active member's role grants `request` (the contracts' access model, the one the server enforces).
 * False while the member loads or when it cannot be read: the server stays the judge, this only hides what would
 * be refused.
 */
export function usePermission(request: PermissionRequest): boolean {
  const member = useQuery(activeMemberQuery(useServices()));
  const role = (member.data as { role?: unknown } | null | undefined)?.role;
  return typeof role === 'string' && authorize([role], request).success;
}
