import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../lib/app-context.tsx';
import { sessionQuery } from './session.queries.ts';

export const useSession = () => useQuery(sessionQuery(useServices()));

/** A `redirect` search param the app may follow: a path on this site, never another origin. */
export function safeRedirect(value: string | null | undefined, fallback = '/dashboard'): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  return value;
}
