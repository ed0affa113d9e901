import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { toast } from 'sonner';
import { useServices } from '../../lib/app-context.tsx';
import {
  billingKeys,
  cancelSubscription,
  type Interval,
  openBillingPortal,
  restoreSubscription,
  upgradeSubscription,
} from './billing.queries.ts';

/** Asks again for every billing query (after a Stripe action, or back from Stripe); the same function each render. */
export function useRefreshBilling() {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: billingKeys.all }), [queryClient]);
}

/**
 * The Stripe actions for the organization `orgId`. Upgrade, cancel and the portal answer a Stripe link, handed to
 * `onLink` (the screen leaves for it); restore needs no link and refreshes the billing data.
 */
export function useSubscriptionActions(orgId: string | null, onLink: (link: { url: string }) => void) {
  const services = useServices();
  const refresh = useRefreshBilling();
  const requireOrg = () => {
    if (!orgId) throw new Error('Choose an organization first.');
    return orgId;
  };
  const upgrade = useMutation({
    mutationFn: (args: { planId: string; interval: Interval }) =>
      upgradeSubscription(services, { ...args, orgId: requireOrg() }),
    onSuccess: onLink,
  });
  const cancel = useMutation({
    mutationFn: () => cancelSubscription(services, requireOrg()),
    onSuccess: onLink,
  });
  const portal = useMutation({
    mutationFn: () => openBillingPortal(services, requireOrg()),
    onSuccess: onLink,
  });
  const restore = useMutation({
    mutationFn: () => restoreSubscription(services, requireOrg()),
    onSuccess: async () => {
      toast.success('Subscription restored: it renews at the end of the period.');
      await refresh();
    },
  });
  return { upgrade, cancel, portal, restore };
}
