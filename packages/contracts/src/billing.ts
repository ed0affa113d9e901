/**
 * The billing period a moment falls in: its UTC calendar month, `YYYY-MM`. Quotas are counted per organization and
 * period; ingest, the usage meter and the quota view must agree on it.
 */
export function billingPeriodOf(at: Date | string): string {
  return (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);
}

/** The organization's subscription as the billing screen shows it; `null` on the default plan without one. */
export interface SubscriptionDto {
  status: string;
  interval: 'month' | 'year' | null;
  periodStart: string | null;
  periodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  trialEnd: string | null;
}

/**
 * `GET /api/v1/billing/usage`: the organization's usage this period against its plan. `held`: submissions accepted
 * over quota, waiting for an upgrade or the next period; `deferred`: notification emails waiting the same way.
 */
export interface BillingUsageDto {
  period: string;
  plan: { id: string; name: string };
  subscription: SubscriptionDto | null;
  submissions: { used: number; max: number; held: number };
  emails: { used: number; max: number; deferred: number };
  /**
   * Uploaded files kept (held and spam submissions included), in MiB with two decimals; `maxMb` is the plan's
   * `fileStorageMb`, `null`: no limit. Over it, uploads are still accepted (ADR 37).
   */
  storage: { usedMb: number; maxMb: number | null };
}

/** The first and last day (UTC, `YYYY-MM-DD`) of a `YYYY-MM` billing period. */
export function billingPeriodBounds(period: string): { start: string; end: string } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { start: `${period}-01`, end: `${period}-${String(last).padStart(2, '0')}` };
}
