import type { SubscriptionDto } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { Panel } from '../../../components/panel.tsx';
import { Button, Notice } from '../../../components/ui.tsx';
import { useRefreshBilling, useSubscriptionActions } from '../../../features/billing/billing.mutations.ts';
import { billingUsageQuery, plansQuery } from '../../../features/billing/billing.queries.ts';
import { safeLink } from '../../../features/forms/submissions.queries.ts';
import { useCan } from '../../../features/organization/use-can.ts';
import { useSession } from '../../../features/session/use-session.ts';
import { leaveApp } from '../../../lib/leave-app.ts';
import { ChangePlan, PlanSkeleton, PlanSummary } from './billing-plans.tsx';
import { UsagePanel } from './billing-usage.tsx';

/** How long, after Stripe sends the person back, the screen keeps asking whether the subscription arrived. */
const CONFIRM_WINDOW_MS = 30_000;
const CONFIRM_EVERY_MS = 2_000;

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
