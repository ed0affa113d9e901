import type { FeatureFlag } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

/** Whether a feature is on for the active organization (`GET /api/v1/flags/{flag}`). */
export const flagQuery = (flag: FeatureFlag) =>
  queryOptions({
    queryKey: ['flags', flag],
    queryFn: async () => (await apiFetch<{ flag: string; enabled: boolean }>(`/api/v1/flags/${flag}`)).enabled,
    staleTime: 5 * 60_000,
  });
