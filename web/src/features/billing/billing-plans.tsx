import type { Plan, PlansResponseDto, SubscriptionDto } from '@formgate/contracts';
import { type ReactNode, useState } from 'react';
import { Panel } from '../../components/panel.tsx';
import { Button } from '../../components/ui.tsx';
import {
  type BillingUsage,
  formatPrice,
  formatRetentionLimit,
  formatStorageMb,
  type Interval,
  isPurchasable,
  priceOf,
  yearlySavingPercent,
} from './billing.queries.ts';
import { IntervalSwitch } from './interval-switch.tsx';

/** A date or day ("2026-11-28") written out, in UTC ("28 November 2026"). */
export const longDay = (iso: string) =>
  new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso).toLocaleDateString('en-GB', {
    dateStyle: 'long',
    timeZone: 'UTC',
  });

const STATUS_LABELS: Record<string, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment past due: update your payment method',
  unpaid: 'Unpaid',
  canceled: 'Cancelled',
  incomplete: 'Waiting for payment',
  incomplete_expired: 'Checkout expired',
  paused: 'Paused',
};

export function PlanSkeleton() {
  return (
    <div aria-hidden="true" className="grid min-h-16 grid-cols-1 gap-3 sm:grid-cols-3">
      {[0, 1, 2].map((i) => (
        <div key={i} className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}

export function PlanSummary(props: {
  usage: BillingUsage;
  plan: Plan | undefined;
  subscription: SubscriptionDto | null;
  billingOff: boolean;
}) {
  const { usage, plan, subscription } = props;
  const interval: Interval = subscription?.interval === 'year' ? 'year' : 'month';
  const price = plan ? priceOf(plan, interval) : 0;
  return (
    <div className="flex flex-col gap-3 text-sm">
      <dl className="grid min-h-16 grid-cols-1 gap-3 sm:grid-cols-3">
        <Item term="Plan">
          {usage.plan.name}
          {plan && price > 0
            ? ` · ${formatPrice(price, plan.prices.currency)} / ${interval === 'year' ? 'year' : 'month'}`
            : ''}
        </Item>
        {subscription ? (
          <>
            <Item term="Status">
              {subscription.status === 'trialing' && subscription.trialEnd
                ? `Trial until ${longDay(subscription.trialEnd)}`
                : (STATUS_LABELS[subscription.status] ?? subscription.status)}
            </Item>
            {subscription.periodEnd ? (
              <Item term={subscription.cancelAtPeriodEnd ? 'Ends on' : 'Renews on'}>
                {longDay(subscription.periodEnd)}
              </Item>
            ) : null}
          </>
        ) : (
          <Item term="Subscription">
            {props.billingOff ? 'Not needed on this instance' : 'None: this plan is free'}
          </Item>
        )}
      </dl>
      {/* Outside the list: a <dl> may hold only term and description groups. */}
      {subscription?.cancelAtPeriodEnd && subscription.periodEnd ? (
        <p className="text-zinc-700 dark:text-zinc-300">
          The subscription is cancelled and ends on {longDay(subscription.periodEnd)}; the organization then returns to
          the free plan. Restore it to keep {usage.plan.name}.
        </p>
      ) : null}
    </div>
  );
}

function Item(props: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-zinc-600 dark:text-zinc-400">{props.term}</dt>
      <dd className="font-medium">{props.children}</dd>
    </div>
  );
}

/** Every purchasable plan for the chosen interval; the current one (same plan and interval) is marked, not offered. */
export function ChangePlan(props: {
  catalog: PlansResponseDto;
  currentPlanId: string;
  subscription: SubscriptionDto | null;
  busy: boolean;
  pendingPlan: { planId: string; interval: Interval } | undefined;
  onChoose: (planId: string, interval: Interval) => void;
}) {
  const currentInterval: Interval = props.subscription?.interval === 'year' ? 'year' : 'month';
  const [interval, setInterval] = useState<Interval>(currentInterval);
  const current = props.catalog.data.find((p) => p.id === props.currentPlanId);
  const currentMonthly = current && props.subscription ? monthlyEquivalent(current, currentInterval) : 0;
  const saving = Math.max(0, ...props.catalog.data.map(yearlySavingPercent));
  return (
    <Panel
      title={props.subscription ? 'Change plan' : 'Upgrade'}
      description="Checkout and payment happen on Stripe. Held submissions are released as soon as the new plan is active."
    >
      <IntervalSwitch
        value={interval}
        onChange={setInterval}
        yearlyNote={saving > 0 ? `Save up to ${saving}% yearly` : undefined}
      />
      <ul aria-label="Plans" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
        {props.catalog.data.map((plan) => {
          const isCurrent = plan.id === props.currentPlanId && (!props.subscription || interval === currentInterval);
          const price = priceOf(plan, interval);
          const label =
            plan.id === props.currentPlanId
              ? `Switch to ${interval === 'year' ? 'yearly' : 'monthly'} billing`
              : monthlyEquivalent(plan, interval) < currentMonthly
                ? `Switch to ${plan.name}`
                : `Upgrade to ${plan.name}`;
          const pending = props.pendingPlan?.planId === plan.id && props.pendingPlan.interval === interval;
          return (
            <li key={plan.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
              <div className="flex flex-col">
                <span className="font-medium">{plan.name}</span>
                <span className="text-sm text-zinc-600 dark:text-zinc-400">
                  {price > 0
                    ? `${formatPrice(price, plan.prices.currency)} / ${interval === 'year' ? 'year' : 'month'}`
                    : isPurchasable(plan, interval === 'year' ? 'month' : 'year')
                      ? `Not sold ${interval === 'year' ? 'yearly' : 'monthly'}`
                      : 'Free'}
                  {' · '}
                  {plan.limits.submissionsPerMonth.toLocaleString('en')} submissions,{' '}
                  {plan.limits.emailsPerMonth.toLocaleString('en')} emails a month,{' '}
                  {formatStorageMb(plan.limits.fileStorageMb)} storage
                  {' · '}
                  {formatRetentionLimit(plan.limits.retentionDays)}
                  {plan.trialDays > 0 && !props.subscription ? ` · ${plan.trialDays}-day free trial` : ''}
                </span>
              </div>
              {isCurrent ? (
                <span className="text-sm font-medium text-zinc-600 dark:text-zinc-400">Current plan</span>
              ) : isPurchasable(plan, interval) ? (
                <Button disabled={props.busy} onClick={() => props.onChoose(plan.id, interval)}>
                  {pending ? 'Opening checkout…' : label}
                </Button>
              ) : props.subscription && !isPurchasable(plan, 'month') && !isPurchasable(plan, 'year') ? (
                <span className="text-sm text-zinc-600 dark:text-zinc-400">
                  Cancel the subscription to return to it
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}

/** A price per month, to tell an upgrade from a cheaper plan whatever the intervals. */
const monthlyEquivalent = (plan: Plan, interval: Interval) =>
  interval === 'year' ? priceOf(plan, 'year') / 12 : priceOf(plan, 'month');
