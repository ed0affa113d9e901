import type { BillingUsageDto } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

export interface EmailQuota {
  used: number;
  max: number;
}

/** Emails sent this billing period against the plan's maximum (the sidebar meter). */
export const emailQuotaQuery = () =>
  queryOptions({
    queryKey: ['billing', 'email-quota'],
    queryFn: () => apiFetch<EmailQuota>('/api/v1/billing/email-quota'),
  });

/** Submissions this period against the plan (`GET /api/v1/billing/usage`). */
export const billingUsageQuery = () =>
  queryOptions({
    queryKey: ['billing', 'usage'],
    queryFn: () => apiFetch<BillingUsageDto>('/api/v1/billing/usage'),
  });

/** The meter's width: used / max as a percentage, clamped to 0–100 (a zero maximum reads as full). */
export function usagePercent({ used, max }: EmailQuota): number {
  if (max <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.max(0, (used / max) * 100));
}
