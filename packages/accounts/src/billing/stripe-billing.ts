import { stripe as stripePlugin } from '@better-auth/stripe';
import type { Logger, PlanCatalog } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';
import Stripe from 'stripe';
import type { OutboxAdapter } from '../org-events/schema.ts';
import { authorizeBilling } from './authorize.ts';
import { stripePlans } from './plans.ts';
import {
  type SubscriptionRecorder,
  stripeEventHandler,
  stripeEventSchemaPlugin,
  webhookGate,
} from './stripe-events.ts';

/** Stripe, when the instance has keys (`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`). */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Where the Stripe API is (default Stripe's own); tests point it at stripe-mock over http. */
  apiUrl?: string;
}

export interface StripeBillingDeps {
  stripe: StripeSettings;
  plans: PlanCatalog;
  publicUrl: string;
  logger: Logger;
  record: SubscriptionRecorder;
  /** better-auth's adapter, once accounts started. */
  adapter: () => OutboxAdapter;
}

export function stripeClient(s: StripeSettings) {
  const url = s.apiUrl ? new URL(s.apiUrl) : undefined;
  return new Stripe(s.secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    appInfo: { name: 'Formgate' },
    ...(url
      ? {
          host: url.hostname,
          port: Number(url.port || (url.protocol === 'http:' ? 80 : 443)),
          protocol: url.protocol === 'http:' ? ('http' as const) : ('https' as const),
        }
      : {}),
  });
}

/** Where checkout and the billing portal send the customer back: the dashboard's billing screen. */
export const billingReturnUrls = (publicUrl: string) => ({
  successUrl: `${publicUrl}/dashboard/billing?checkout=success`,
  cancelUrl: `${publicUrl}/dashboard/billing?checkout=cancel`,
  returnUrl: `${publicUrl}/dashboard/billing`,
});

/**
 * better-auth's stripe plugin as Formgate configures it: subscriptions of organizations (the reference is the
 * organization id), plans from the plans catalog, only owners and admins may act, return URLs fixed to the billing
 * screen, and every subscription change it applies from a webhook leaves as one `subscription.changed` (ADR 33,
 * `docs/billing-stripe.md`).
 */
export function stripeBillingPlugins(deps: StripeBillingDeps): BetterAuthPlugin[] {
  const client = stripeClient(deps.stripe);
  const handler = stripeEventHandler({
    adapter: deps.adapter,
    plans: deps.plans,
    record: deps.record,
    logger: deps.logger,
  });
  const gate = webhookGate({ stripe: client, webhookSecret: deps.stripe.webhookSecret, logger: deps.logger });
  const urls = billingReturnUrls(deps.publicUrl);
  const plans = stripePlans(deps.plans);
  return [
    stripePlugin({
      stripeClient: client,
      stripeWebhookSecret: deps.stripe.webhookSecret,
      createCustomerOnSignUp: false,
      organization: { enabled: true },
      subscription: {
        enabled: true,
        plans,
        authorizeReference: async ({ user, referenceId, action }) =>
          authorizeBilling(deps.adapter(), user.id, referenceId, action),
      },
      onEvent: handler.onEvent,
    }) as unknown as BetterAuthPlugin,
    {
      ...stripeEventSchemaPlugin(),
      onRequest: gate,
      hooks: {
        before: [
          {
            // A client cannot send the customer elsewhere: checkout and the portal always come back to the billing
            // screen. Organization subscriptions only: the reference is always an organization.
            matcher: (ctx) => ctx.path?.startsWith('/subscription/') ?? false,
            handler: createAuthMiddleware(async (ctx) => {
              if (ctx.path === '/subscription/success') return;
              const body = (ctx.body ?? {}) as Record<string, unknown>;
              if (ctx.request?.method === 'GET' || ctx.path === '/subscription/list')
                return { context: { query: { ...(ctx.query ?? {}), customerType: 'organization' } } };
              return { context: { body: { ...body, ...urls, customerType: 'organization' } } };
            }),
          },
        ],
      },
    },
  ];
}
