import { z } from 'zod';

/**
 * The billing period a moment falls in: its UTC calendar month, `YYYY-MM`. Quotas are counted per organization and
 * period; ingest, the usage meter and the quota view must agree on it.
 */
export function billingPeriodOf(at: Date | string): string {
  return (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);
}

/** The organization's subscription as the billing screen shows it; `null` on the default plan without one. */
export const SubscriptionDtoSchema = z.object({
  status: z.string(),
  interval: z.enum(['month', 'year']).nullable(),
  periodStart: z.string().nullable(),
  periodEnd: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
  trialEnd: z.string().nullable(),
});
export type SubscriptionDto = z.infer<typeof SubscriptionDtoSchema>;

/**
 * `GET /api/v1/billing/usage`: the organization's usage this period against its plan. `held`: submissions accepted
 * over quota, waiting for an upgrade or the next period; `deferred`: notification emails waiting the same way.
 */
export const BillingUsageDtoSchema = z.object({
  period: z.string(),
  plan: z.object({ id: z.string(), name: z.string() }),
  subscription: SubscriptionDtoSchema.nullable(),
  submissions: z.object({ used: z.number(), max: z.number(), held: z.number() }),
  emails: z.object({ used: z.number(), max: z.number(), deferred: z.number() }),
  /**
   * Uploaded files kept (held and spam submissions included), in MiB with two decimals; `maxMb` is the plan's
   * `fileStorageMb`, `null`: no limit. Over it, uploads are still accepted (ADR 37).
   */
  storage: z.object({ usedMb: z.number(), maxMb: z.number().nullable() }),
});
export type BillingUsageDto = z.infer<typeof BillingUsageDtoSchema>;

/** `GET /api/v1/billing/email-quota`: notification emails sent this period, and the plan's monthly allowance. */
export const EmailQuotaDtoSchema = z.object({ used: z.number(), max: z.number() });
export type EmailQuotaDto = z.infer<typeof EmailQuotaDtoSchema>;

/** The first and last day (UTC, `YYYY-MM-DD`) of a `YYYY-MM` billing period. */
export function billingPeriodBounds(period: string): { start: string; end: string } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { start: `${period}-01`, end: `${period}-${String(last).padStart(2, '0')}` };
}
