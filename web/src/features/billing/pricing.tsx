import type { Plan } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { useSession } from '../session/use-session.ts';
import {
  FEATURE_LABELS,
  formatLimit,
  formatPrice,
  formatRetentionLimit,
  formatStorageMb,
  type Interval,
  plansQuery,
  priceOf,
  yearlySavingPercent,
} from './billing.queries.ts';
import { IntervalSwitch } from './interval-switch.tsx';

const CARD = 'flex flex-col gap-4 rounded-lg border border-zinc-200 p-6 dark:border-zinc-800';

/** `/pricing`: the instance's plans (`GET /api/v1/plans`), monthly or yearly, with their limits and features. */
export function PricingScreen() {
  const plans = useQuery(plansQuery());
  const session = useSession();
  const signedIn = Boolean(session.data);
  const [interval, setInterval] = useState<Interval>('month');
  const bestSaving = Math.max(0, ...(plans.data?.data.map(yearlySavingPercent) ?? []));
  const defaultPlan = plans.data?.data.find((p) => p.id === plans.data?.defaultPlan);

  return (
    <div className="flex flex-col gap-8">
      <div className="flex flex-col gap-3">
        <h1 className="text-3xl font-bold">Pricing</h1>
        <p className="text-zinc-700 dark:text-zinc-300">
          Limits are per organization and calendar month. Spam is never counted, and over the limit your submissions are
          held for you, not lost.
        </p>
        <IntervalSwitch
          value={interval}
          onChange={setInterval}
          legend="Show prices"
          yearlyNote={bestSaving > 0 ? `Save up to ${bestSaving}% yearly` : undefined}
        />
      </div>
      {plans.data && !plans.data.billingEnabled ? (
        <Notice>
          Payments are not set up on this instance: every organization is on the {defaultPlan?.name ?? 'default'} plan.
        </Notice>
      ) : null}
      {plans.isError ? (
        <Notice tone="error">The plans could not be loaded. Reload the page to try again.</Notice>
      ) : null}
      {plans.isPending ? (
        <>
          <p role="status" className="sr-only">
            Loading plans
          </p>
          {/* Placeholders the size of the cards, so the page does not jump when the plans arrive. */}
          <ul aria-hidden="true" className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {[0, 1, 2].map((i) => (
              <li key={i} className={`${CARD} min-h-96 animate-pulse bg-zinc-50 dark:bg-zinc-900`} />
            ))}
          </ul>
        </>
      ) : null}
      {plans.data ? (
        <ul aria-label="Plans" className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {plans.data.data.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              interval={interval}
              billingEnabled={plans.data.billingEnabled}
              signedIn={signedIn}
            />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function PlanCard(props: { plan: Plan; interval: Interval; billingEnabled: boolean; signedIn: boolean }) {
  const { plan, interval } = props;
  const headingId = `plan-${plan.id}`;
  const free = plan.prices.monthly <= 0 && plan.prices.yearly <= 0;
  const price = priceOf(plan, interval);
  const saving = interval === 'year' ? yearlySavingPercent(plan) : 0;
  const limits = plan.limits;
  const cta = callToAction(plan, free, props);
  return (
    <li aria-labelledby={headingId} className={CARD}>
      <div className="flex flex-col gap-1">
        <h2 id={headingId} className="text-xl font-semibold">
          {plan.name}
        </h2>
        {plan.description ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{plan.description}</p> : null}
      </div>
      <p className="flex min-h-12 flex-wrap items-baseline gap-x-2">
        {free ? (
          <span className="text-3xl font-bold">Free</span>
        ) : price > 0 ? (
          <>
            <span className="text-3xl font-bold">{formatPrice(price, plan.prices.currency)}</span>
            <span className="text-base">{interval === 'year' ? '/ year' : '/ month'}</span>
            {saving > 0 ? (
              <span className="text-sm font-medium text-green-700 dark:text-green-400">save {saving}%</span>
            ) : null}
          </>
        ) : (
          <span className="text-lg font-medium">
            {interval === 'year' ? 'Monthly billing only' : 'Yearly billing only'}
          </span>
        )}
      </p>
      {plan.trialDays > 0 && props.billingEnabled ? (
        <p className="text-sm font-medium">{plan.trialDays}-day free trial</p>
      ) : null}
      <ul aria-label={`${plan.name} limits`} className="flex flex-col gap-1 text-sm">
        <li>{formatLimit(limits.submissionsPerMonth)} submissions a month</li>
        <li>{formatLimit(limits.emailsPerMonth)} notification emails a month</li>
        <li>{limits.forms === null ? 'Unlimited forms' : `${formatLimit(limits.forms)} forms`}</li>
        <li>{limits.members === null ? 'Unlimited team members' : `${formatLimit(limits.members)} team members`}</li>
        <li>
          {limits.fileStorageMb === null
            ? 'Unlimited file storage'
            : `${formatStorageMb(limits.fileStorageMb)} file storage`}
        </li>
        <li>{formatRetentionLimit(limits.retentionDays)}</li>
      </ul>
      {plan.features.length > 0 ? (
        <ul aria-label={`${plan.name} features`} className="flex flex-col gap-1 text-sm">
          {plan.features.map((feature) => (
            <li key={feature} className="flex gap-2">
              <span aria-hidden="true">✓</span>
              {FEATURE_LABELS[feature] ?? feature}
            </li>
          ))}
        </ul>
      ) : null}
      <Link
        to={cta.to}
        className={
          free
            ? 'mt-auto rounded-md border border-zinc-300 px-4 py-2 text-center font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800'
            : 'mt-auto rounded-md bg-brand-600 px-4 py-2 text-center font-medium text-white hover:bg-brand-700'
        }
      >
        {cta.label}
        <span className="sr-only"> ({plan.name} plan)</span>
      </Link>
    </li>
  );
}

/**
 * The free plan starts with a sign-up (or the dashboard when signed in); a paid one signs up first, or, when signed
 * in, opens the billing screen where owners and admins buy it. With billing off nothing is for sale.
 */
function callToAction(
  plan: Plan,
  free: boolean,
  { signedIn, billingEnabled }: { signedIn: boolean; billingEnabled: boolean },
): { to: string; label: string } {
  if (free || !billingEnabled) {
    return signedIn ? { to: '/dashboard', label: 'Go to dashboard' } : { to: '/sign-up', label: 'Start free' };
  }
  if (!signedIn) return { to: '/sign-up', label: plan.trialDays > 0 ? 'Start free trial' : `Get ${plan.name}` };
  return { to: '/dashboard/billing', label: `Choose ${plan.name}` };
}
