import type { BillingUsageDto, EmailQuotaDto, Plan, PlansResponseDto } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import { type AppServices, unwrap } from '../../lib/app-context.tsx';

/*
 * Every billing call of the web app: the public plans, the organization's usage, and the Stripe actions through
 * better-auth's stripe client plugin (`auth.subscription.*`, the organization as the reference).
 */

export type { EmailQuotaDto as EmailQuota };

export const billingKeys = {
  all: ['billing'] as const,
  usage: () => [...billingKeys.all, 'usage'] as const,
  emailQuota: () => [...billingKeys.all, 'email-quota'] as const,
  plans: () => [...billingKeys.all, 'plans'] as const,
};

/** Emails sent this billing period against the plan's maximum (the sidebar meter). */
export const emailQuotaQuery = () =>
  queryOptions({
    queryKey: billingKeys.emailQuota(),
    queryFn: () => apiFetch<EmailQuotaDto>('/api/v1/billing/email-quota'),
  });

/** Storage used against the plan: MiB used, and MiB allowed (`null`: no limit). */
export type StorageUsage = BillingUsageDto['storage'];

/** The usage answer. */
export type BillingUsage = BillingUsageDto;

/** The organization's plan, subscription and usage this period (`GET /api/v1/billing/usage`). */
export const billingUsageQuery = () =>
  queryOptions({
    queryKey: billingKeys.usage(),
    queryFn: () => apiFetch<BillingUsage>('/api/v1/billing/usage'),
  });

/** The instance's plans, its default plan and whether Stripe is configured (`GET /api/v1/plans`, public). */
export const plansQuery = () =>
  queryOptions({
    queryKey: billingKeys.plans(),
    queryFn: () => apiFetch<PlansResponseDto>('/api/v1/plans'),
    staleTime: 5 * 60_000,
  });

/** The meter's width: used / max as a percentage, clamped to 0–100 (a zero maximum reads as full). */
export function usagePercent({ used, max }: EmailQuotaDto): number {
  if (max <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.max(0, (used / max) * 100));
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting

export type Interval = 'month' | 'year';

/** Digits after the point of a currency's minor unit (2 for USD and EUR, 0 for JPY). */
function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * A price in a currency's minor unit as people read it: `0` → "Free", `1500` USD → "$15", `1999` → "$19.99",
 * `1500` EUR → "€15". An unknown currency code still prints (its code, then the amount).
 */
export function formatPrice(minor: number, currency: string): string {
  if (minor <= 0) return 'Free';
  const code = currency.toUpperCase();
  const digits = minorDigits(code);
  const amount = minor / 10 ** digits;
  const whole = Number.isInteger(amount);
  try {
    return new Intl.NumberFormat('en', {
      style: 'currency',
      currency: code,
      minimumFractionDigits: whole ? 0 : digits,
      maximumFractionDigits: digits,
    }).format(amount);
  } catch {
    return `${code} ${amount.toFixed(whole ? 0 : digits)}`;
  }
}

/** A plan's price for an interval, in minor units (0 when free). */
export const priceOf = (plan: Plan, interval: Interval) =>
  interval === 'year' ? plan.prices.yearly : plan.prices.monthly;

/** Whole percent a yearly price saves against twelve monthly ones; 0 when it saves nothing or a price is missing. */
export function yearlySavingPercent(plan: Plan): number {
  const { monthly, yearly } = plan.prices;
  if (monthly <= 0 || yearly <= 0) return 0;
  return Math.max(0, Math.round((1 - yearly / (monthly * 12)) * 100));
}

/** Whether the plan can be bought on this instance for the interval (it has a price there). */
export const isPurchasable = (plan: Plan, interval: Interval) => priceOf(plan, interval) > 0;

/** A count limit: `null` → "Unlimited", otherwise grouped digits ("5,000"). */
export const formatLimit = (value: number | null) => (value === null ? 'Unlimited' : value.toLocaleString('en'));

/** A storage limit in MiB: "100 MB", "10 GB", `null` → "Unlimited". */
export function formatStorageMb(value: number | null): string {
  if (value === null) return 'Unlimited';
  if (value >= 1024 && value % 1024 === 0) return `${(value / 1024).toLocaleString('en')} GB`;
  if (value >= 1024) return `${(value / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} GB`;
  return `${value.toLocaleString('en')} MB`;
}

/** A retention limit in days: "Submissions kept 365 days", `null` → "Submissions kept as long as you want". */
export const formatRetentionLimit = (days: number | null) =>
  days === null
    ? 'Submissions kept as long as you want'
    : `Submissions kept ${days.toLocaleString('en')} ${days === 1 ? 'day' : 'days'}`;

export const FEATURE_LABELS: Record<Plan['features'][number], string> = {
  webhooks: 'Webhooks',
  'file-uploads': 'File uploads',
  'custom-smtp': 'Your own SMTP server',
  autoresponse: 'Autoresponse emails',
  'priority-support': 'Priority support',
};

// ---------------------------------------------------------------------------------------------------------------
// Stripe, through better-auth's stripe plugin. Every call names the organization (`customerType: 'organization'`,
// `referenceId`); the gateway's `authorizeReference` lets only its owners and admins act. Each answers a Stripe URL
// (checkout or billing portal) that the screen follows itself (`disableRedirect`), after checking it is http(s).

/** Where Stripe sends the person back to; `checkout` tells the billing screen how checkout ended. */
export const billingReturnUrl = (checkout?: 'success' | 'cancel', origin = window.location.origin) =>
  `${origin}/dashboard/billing${checkout ? `?checkout=${checkout}` : ''}`;

/** The organization a Stripe call is for, and where Stripe sends the person back (the screen follows the link). */
const redirectedBack = (orgId: string) => ({
  referenceId: orgId,
  customerType: 'organization' as const,
  returnUrl: billingReturnUrl(),
  disableRedirect: true,
});

/** Checkout for a plan (a first subscription), or the portal's confirmation of a plan change (an existing one). */
export async function upgradeSubscription(
  { auth }: AppServices,
  args: { orgId: string; planId: string; interval: Interval },
): Promise<{ url: string }> {
  const data = unwrap(
    await auth.subscription.upgrade({
      plan: args.planId,
      annual: args.interval === 'year',
      ...redirectedBack(args.orgId),
      successUrl: billingReturnUrl('success'),
      cancelUrl: billingReturnUrl('cancel'),
    }),
  );
  return { url: urlOf(data) };
}

/** The billing portal's cancellation flow (Stripe cancels at the period's end). */
export async function cancelSubscription({ auth }: AppServices, orgId: string): Promise<{ url: string }> {
  return { url: urlOf(unwrap(await auth.subscription.cancel(redirectedBack(orgId)))) };
}

/** Undoes a cancellation at the period's end (`POST /api/auth/subscription/restore`); no redirect. */
export async function restoreSubscription({ auth }: AppServices, orgId: string): Promise<void> {
  unwrap(await auth.subscription.restore({ referenceId: orgId, customerType: 'organization' }));
}

/** Stripe's billing portal: payment methods and invoices. */
export async function openBillingPortal({ auth }: AppServices, orgId: string): Promise<{ url: string }> {
  return { url: urlOf(unwrap(await auth.subscription.billingPortal(redirectedBack(orgId)))) };
}

function urlOf(data: unknown): string {
  const url = data && typeof data === 'object' ? (data as { url?: unknown }).url : undefined;
  if (typeof url !== 'string' || !url) throw new Error('The payment provider answered no link. Try again.');
  return url;
}
