import type { SiteConfig } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

/** The instance's public configuration: its plans and its own forms (`GET /api/v1/site`). */
export const siteQuery = () =>
  queryOptions({
    queryKey: ['site'],
    queryFn: () => apiFetch<SiteConfig>('/api/v1/site'),
    staleTime: Number.POSITIVE_INFINITY,
  });
