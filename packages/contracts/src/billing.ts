/**
 * The billing period a moment falls in: its UTC calendar month, `YYYY-MM`. Quotas are counted per organization and
 * period; ingest, the usage meter and the quota view must agree on it.
 */
export function billingPeriodOf(at: Date | string): string {
  return (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);
}

/** `GET /api/v1/billing/usage`: the organization's submissions this period against its plan. */
export interface BillingUsageDto {
  period: string;
  submissions: { used: number; max: number };
}

/** The first and last day (UTC, `YYYY-MM-DD`) of a `YYYY-MM` billing period. */
export function billingPeriodBounds(period: string): { start: string; end: string } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { start: `${period}-01`, end: `${period}-${String(last).padStart(2, '0')}` };
}
