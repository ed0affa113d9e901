import type { PlanCatalog } from '@formgate/kit';

/** A plan as the stripe plugin knows it (the subset of its `StripePlan` Formgate fills in). */
export interface StripePluginPlan {
  /** The plugin lower-cases plan names and stores them in its `subscription.plan`: Formgate uses the plan id. */
  name: string;
  priceId: string;
  annualDiscountPriceId?: string;
  freeTrial?: { days: number };
  limits: { submissionsPerMonth: number; emailsPerMonth: number };
}

/**
 * The purchasable plans of the catalog for the stripe plugin: those with a monthly Stripe price id (the free plan, or
 * one the operator sells by hand, has none and cannot be bought). The yearly price is the plugin's "annual" price.
 */
export function stripePlans(catalog: PlanCatalog): StripePluginPlan[] {
  return catalog.plans.flatMap((p) =>
    p.stripe.monthlyPriceId
      ? [
          {
            name: p.id,
            priceId: p.stripe.monthlyPriceId,
            ...(p.stripe.yearlyPriceId ? { annualDiscountPriceId: p.stripe.yearlyPriceId } : {}),
            ...(p.trialDays > 0 ? { freeTrial: { days: p.trialDays } } : {}),
            limits: { submissionsPerMonth: p.limits.submissionsPerMonth, emailsPerMonth: p.limits.emailsPerMonth },
          },
        ]
      : [],
  );
}

/** The plan a Stripe price id belongs to (monthly or yearly), if any. */
export function planOfPrice(catalog: PlanCatalog, priceId: string | undefined | null) {
  if (!priceId) return undefined;
  return catalog.plans.find((p) => p.stripe.monthlyPriceId === priceId || p.stripe.yearlyPriceId === priceId);
}
