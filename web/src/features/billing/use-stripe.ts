import type { SubscriptionDto } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { toast } from 'sonner';
import { leaveApp } from '../../lib/leave-app.ts';
import { safeLink } from '../submissions/submissions.queries.ts';
import { useRefreshBilling, useSubscriptionActions } from './billing.mutations.ts';
import { billingUsageQuery } from './billing.queries.ts';

/** How long, after Stripe sends the person back, the screen keeps asking whether the subscription arrived. */
const CONFIRM_WINDOW_MS = 30_000;
const CONFIRM_EVERY_MS = 2_000;

/**
 * The organization's usage; after checkout, Stripe's webhook may land a moment after the person, so it is asked
 * again every 2 s (up to 30 s) until the subscription shows, `waitingForStripe` meanwhile.
 */
export function useUsageAfterCheckout() {
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
  useCheckoutReturn(() => setConfirming(true));
  return { usage, waitingForStripe: confirming && !isPaid(usage.data?.subscription) };
}

/**
 * The Stripe actions, each following the link Stripe answers (http(s) only); one at a time, and `busy` from then
 * on while the browser is on its way to Stripe.
 */
export function useStripe(orgId: string | null) {
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
  const actions = useSubscriptionActions(orgId, goTo);
  const { upgrade, cancel, portal, restore } = actions;
  return {
    ...actions,
    busy: leaving || upgrade.isPending || cancel.isPending || portal.isPending || restore.isPending,
  };
}

export type Stripe = ReturnType<typeof useStripe>;

const PAID_STATUSES = new Set(['active', 'trialing', 'past_due']);
export const isPaid = (subscription: SubscriptionDto | null | undefined) =>
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
