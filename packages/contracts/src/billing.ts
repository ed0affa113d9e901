/**
 * The billing period a moment falls in: its UTC calendar month, `YYYY-MM`. Quotas are counted per organization and
 * period; ingest, the usage meter and the quota view must agree on it.
 */
export function billingPeriodOf(at: Date | string): string {
  return (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);
}
