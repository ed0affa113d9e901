import type { SubscriptionDto } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { useCan } from '../organization/use-can.ts';
import { useSession } from '../session/use-session.ts';
import { plansQuery } from './billing.queries.ts';
import { ChangePlan, PlanSkeleton, PlanSummary } from './billing-plans.tsx';
import { UsagePanel } from './billing-usage.tsx';
import { isPaid, type Stripe, useStripe, useUsageAfterCheckout } from './use-stripe.ts';

/**
 * `/dashboard/billing`: the organization's plan, subscription and usage this period; owners and admins change the
 * plan through Stripe (checkout, the billing portal for payment methods, invoices and cancellation) and restore a
 * cancelled subscription. Members see the plan and usage only. With billing off on the instance nothing is for sale.
 */
export function BillingScreen() {
  const session = useSession();
  const orgId = session.data?.session.activeOrganizationId ?? null;
  const { can, isPending: roleLoading } = useCan();
  const canManage = can({ organization: ['update'] });
  const { usage, waitingForStripe } = useUsageAfterCheckout();
  const plans = useQuery(plansQuery());
  const stripe = useStripe(orgId);

  const catalog = plans.data;
  const billingOn = catalog?.billingEnabled === true;
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
            plan={catalog?.data.find((p) => p.id === usage.data.plan.id)}
            subscription={subscription}
            billingOff={catalog?.billingEnabled === false}
          />
        ) : null}
        {showActions && subscription ? <SubscriptionActions subscription={subscription} stripe={stripe} /> : null}
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
          busy={stripe.busy}
          pendingPlan={stripe.upgrade.isPending ? stripe.upgrade.variables : undefined}
          onChoose={(planId, interval) => stripe.upgrade.mutate({ planId, interval })}
        />
      ) : null}

      <UsagePanel usage={usage} />
    </div>
  );
}

/** Restore a cancelled subscription, open Stripe's billing portal, or cancel (through the portal). */
function SubscriptionActions({ subscription, stripe }: { subscription: SubscriptionDto; stripe: Stripe }) {
  const { restore, portal, cancel, busy } = stripe;
  return (
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
  );
}
