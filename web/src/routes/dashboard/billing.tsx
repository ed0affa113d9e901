import { billingPeriodBounds, type Plan, type PlansResponseDto, type SubscriptionDto } from '@formgate/contracts';
import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { useRefreshBilling, useSubscriptionActions } from '../../features/billing/billing.mutations.ts';
import {
  type BillingUsage,
  billingUsageQuery,
  formatPrice,
  formatStorageMb,
  type Interval,
  isPurchasable,
  plansQuery,
  priceOf,
  yearlySavingPercent,
} from '../../features/billing/billing.queries.ts';
import { IntervalSwitch } from '../../features/billing/interval-switch.tsx';
import { formsListQuery } from '../../features/forms/forms.queries.ts';
import { safeLink } from '../../features/forms/submissions.queries.ts';
import { useCan } from '../../features/organization/use-can.ts';
import { useSession } from '../../features/session/use-session.ts';
import { leaveApp } from '../../lib/leave-app.ts';
import { UsageBar } from './usage-meter.tsx';

const longDay = (iso: string) =>
  new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso).toLocaleDateString('en-GB', {
    dateStyle: 'long',
    timeZone: 'UTC',
  });

const n = (value: number) => value.toLocaleString('en');
const plural = (count: number, one: string, many: string) => `${n(count)} ${count === 1 ? one : many}`;

/** How long, after Stripe sends the person back, the screen keeps asking whether the subscription arrived. */
const CONFIRM_WINDOW_MS = 30_000;
const CONFIRM_EVERY_MS = 2_000;
/** Forms linked by name from the held notice; more are one link to the forms list. */
const HELD_FORM_LINKS = 5;

/**
 * `/dashboard/billing`: the organization's plan, subscription and usage this period; owners and admins change the
 * plan through Stripe (checkout, the billing portal for payment methods, invoices and cancellation) and restore a
 * cancelled subscription. Members see the plan and usage only. With billing off on the instance nothing is for sale.
 */
export function Component() {
  const session = useSession();
  const orgId = session.data?.session.activeOrganizationId ?? null;
  const { can, isPending: roleLoading } = useCan();
  const canManage = can({ organization: ['update'] });

  // After checkout, Stripe's webhook may land a moment after the person: ask again until the subscription shows.
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (!confirming) return;
    const timer = setTimeout(() => setConfirming(false), CONFIRM_WINDOW_MS);
    return () => clearTimeout(timer);
  }, [confirming]);
  const usage = useQuery({
    ...billingUsageQuery(),
    refetchInterval: (query) => (confirming && !isPaid(query.state.data?.subscription) ? CONFIRM_EVERY_MS : false),
  });
  const plans = useQuery(plansQuery());
  useCheckoutReturn(() => setConfirming(true));
  const waitingForStripe = confirming && !isPaid(usage.data?.subscription);

  // One Stripe action at a time; once the browser is on its way to Stripe the buttons stay disabled.
  const [leaving, setLeaving] = useState(false);
  useEffect(() => {
    // Back from Stripe with the browser's back button, the page may come out of the back-forward cache as it was.
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false);
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, []);
  const goTo = ({ url }: { url: string }) => {
    const safe = safeLink(url);
    if (!safe) {
      toast.error('The payment provider answered an unusable link. Try again.');
      return;
    }
    setLeaving(true);
    leaveApp.assign(safe);
  };
  const { upgrade, cancel, portal, restore } = useSubscriptionActions(orgId, goTo);
  const busy = leaving || upgrade.isPending || cancel.isPending || portal.isPending || restore.isPending;

  const catalog = plans.data;
  const billingOn = catalog?.billingEnabled === true;
  const current = usage.data ? catalog?.data.find((p) => p.id === usage.data.plan.id) : undefined;
  const subscription = usage.data?.subscription ?? null;
  const showActions = billingOn && canManage && !roleLoading;

  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Billing</h1>
      {catalog && !billingOn ? (
        <Notice>
          Billing is off on this instance: every organization is on the{' '}
          {catalog.data.find((p) => p.id === catalog.defaultPlan)?.name ?? catalog.defaultPlan} plan, and there is
          nothing to buy.
        </Notice>
      ) : null}
      {waitingForStripe ? (
        <Notice>Confirming your payment with Stripe… your new plan shows here in a moment.</Notice>
      ) : null}

      <Panel title="Plan">
        {usage.isError ? <Notice tone="error">The plan could not be loaded.</Notice> : null}
        {usage.isPending ? <PlanSkeleton /> : null}
        {usage.data ? (
          <PlanSummary
            usage={usage.data}
            plan={current}
            subscription={subscription}
            billingOff={catalog?.billingEnabled === false}
          />
        ) : null}
        {showActions && subscription ? (
          <div className="flex flex-wrap gap-2">
            {subscription.cancelAtPeriodEnd ? (
              <Button disabled={busy} onClick={() => restore.mutate()}>
                {restore.isPending ? 'Restoring…' : 'Restore subscription'}
              </Button>
            ) : null}
            <Button variant="secondary" disabled={busy} onClick={() => portal.mutate()}>
              {portal.isPending ? 'Opening…' : 'Manage payment and invoices'}
            </Button>
            {!subscription.cancelAtPeriodEnd && isPaid(subscription) ? (
              <Button variant="secondary" disabled={busy} onClick={() => cancel.mutate()}>
                {cancel.isPending ? 'Opening…' : 'Cancel subscription'}
              </Button>
            ) : null}
          </div>
        ) : null}
        {billingOn && !roleLoading && !canManage ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Only owners and admins can change the plan, manage payment or see invoices. Ask one of them.
          </p>
        ) : null}
      </Panel>

      {showActions && catalog && usage.data ? (
        <ChangePlan
          catalog={catalog}
          currentPlanId={usage.data.plan.id}
          subscription={subscription}
          busy={busy}
          pendingPlan={upgrade.isPending ? upgrade.variables : undefined}
          onChoose={(planId, interval) => upgrade.mutate({ planId, interval })}
        />
      ) : null}

      <UsagePanel usage={usage} />
    </div>
  );
}

const PAID_STATUSES = new Set(['active', 'trialing', 'past_due']);
const isPaid = (subscription: SubscriptionDto | null | undefined) =>
  Boolean(subscription && PAID_STATUSES.has(subscription.status));

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

/**
 * `?checkout=success|cancel` (where Stripe sends the person back): a toast, fresh billing data, and the parameter
 * removed so a reload does not say it again.
 */
function useCheckoutReturn(onSuccess: () => void) {
  const [params, setParams] = useSearchParams();
  const refreshBilling = useRefreshBilling();
  const checkout = params.get('checkout');
  const handled = useRef<string | null>(null);
  const onSuccessRef = useRef(onSuccess);
  onSuccessRef.current = onSuccess;
  useEffect(() => {
    if (checkout !== 'success' && checkout !== 'cancel') return;
    if (handled.current === checkout) return;
    handled.current = checkout;
    if (checkout === 'success') {
      toast.success('Thank you! Your payment went through.');
      onSuccessRef.current();
    } else {
      toast('Checkout cancelled: nothing was charged.');
    }
    void refreshBilling();
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('checkout');
        return next;
      },
      { replace: true },
    );
  }, [checkout, refreshBilling, setParams]);
}

function PlanSkeleton() {
  return (
    <div aria-hidden="true" className="grid min-h-16 grid-cols-1 gap-3 sm:grid-cols-3">
      {[0, 1, 2].map((i) => (
        <div key={i} className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}

function PlanSummary(props: {
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
function ChangePlan(props: {
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

function UsagePanel({ usage }: { usage: UseQueryResult<BillingUsage> }) {
  const data = usage.data;
  const period = data ? billingPeriodBounds(data.period) : null;
  const forms = useQuery({ ...formsListQuery(), enabled: (data?.submissions.held ?? 0) > 0 });
  const over = data ? data.submissions.used >= data.submissions.max || data.emails.used >= data.emails.max : false;
  return (
    <Panel
      title="Usage this period"
      description={
        period ? `${longDay(period.start)} – ${longDay(period.end)} (UTC). Counts start again on the 1st.` : undefined
      }
    >
      {usage.isError ? <Notice tone="error">Usage could not be loaded.</Notice> : null}
      {usage.isPending ? (
        <div aria-hidden="true" className="flex min-h-24 flex-col gap-4">
          <div className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
          <div className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
        </div>
      ) : null}
      {data ? (
        <>
          <UsageBar size="large" label="Submissions" quota={data.submissions} />
          <UsageBar size="large" label="Emails sent" quota={data.emails} />
          {data.storage ? (
            data.storage.maxMb === null ? (
              <p className="text-sm">
                <span className="font-medium">File storage</span>: {formatStorageMb(data.storage.usedMb)} used (no
                limit)
              </p>
            ) : (
              <UsageBar
                size="large"
                label="File storage (MB)"
                quota={{ used: data.storage.usedMb, max: data.storage.maxMb }}
              />
            )
          ) : null}
          {data.submissions.held > 0 ? (
            <Notice>
              <p>
                {plural(data.submissions.held, 'submission is', 'submissions are')} held until you upgrade or the period
                ends. Nothing is lost: they appear, are notified and counted as soon as one happens.
              </p>
              {forms.data && forms.data.length > 0 ? (
                <p className="mt-1">
                  See them in:{' '}
                  {forms.data.slice(0, HELD_FORM_LINKS).map((form, i) => (
                    <span key={form.id}>
                      {i > 0 ? ', ' : ''}
                      <Link
                        to={`/dashboard/forms/${encodeURIComponent(form.slug)}/submissions?held=true`}
                        aria-label={`Held submissions of ${form.name}`}
                        className="font-medium underline"
                      >
                        {form.name}
                      </Link>
                    </span>
                  ))}
                  {forms.data.length > HELD_FORM_LINKS ? (
                    <>
                      {' and '}
                      <Link to="/dashboard/forms" className="font-medium underline">
                        {plural(forms.data.length - HELD_FORM_LINKS, 'other form', 'other forms')}
                      </Link>
                    </>
                  ) : null}
                </p>
              ) : null}
            </Notice>
          ) : null}
          {data.emails.deferred > 0 ? (
            <Notice>
              {plural(data.emails.deferred, 'notification email is', 'notification emails are')} deferred: they are sent
              after an upgrade or when the period ends, never dropped.
            </Notice>
          ) : null}
          {over && data.submissions.held === 0 && data.emails.deferred === 0 ? (
            <Notice>
              A quota is used up. Submissions over it are still accepted and stored as held: none is lost.
            </Notice>
          ) : null}
        </>
      ) : null}
    </Panel>
  );
}
