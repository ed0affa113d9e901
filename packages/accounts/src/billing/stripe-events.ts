import { SUBSCRIPTION_STATUSES, type SubscriptionChanged } from '@formgate/contracts';
import type { Logger, PlanCatalog } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import type Stripe from 'stripe';
import type { OutboxAdapter } from '../org-events/schema.ts';
import { planOfPrice } from './plans.ts';

/** One row per Stripe event Formgate has handled: the dedupe and ordering record of the webhook. */
export const STRIPE_EVENT_MODEL = 'stripeEvent';
/** The stripe plugin's table (one row per subscription it knows). */
export const SUBSCRIPTION_MODEL = 'subscription';

export interface StripeEventRow {
  id: string;
  stripeEventId: string;
  type: string;
  /** The Stripe subscription the event is about, when it is about one. */
  stripeSubscriptionId?: string | null;
  /** The Stripe event's `created` (epoch seconds). */
  created: number;
  /** `applied`: handled and its `subscription.changed` recorded; `stale`: older than one already applied; `ignored`. */
  outcome: string;
}

/** The plugin's `subscription` row, as far as Formgate reads it. */
export interface SubscriptionRow {
  id: string;
  plan: string;
  referenceId: string;
  stripeCustomerId?: string | null;
  stripeSubscriptionId?: string | null;
  status?: string | null;
  periodStart?: Date | string | null;
  periodEnd?: Date | string | null;
  trialEnd?: Date | string | null;
  cancelAtPeriodEnd?: boolean | null;
  cancelAt?: Date | string | null;
  billingInterval?: string | null;
}

export type SubscriptionChange = SubscriptionChanged['data'];

/** Records one `subscription.changed` (the accounts outbox); `eventId` is the envelope id, derived from Stripe's. */
export type SubscriptionRecorder = (eventId: string, change: SubscriptionChange) => Promise<void>;

/** The envelope id of the `subscription.changed` a Stripe event produces: a replayed event produces the same id. */
export const subscriptionEventId = (stripeEventId: string) => `stripe:${stripeEventId}`;

export function stripeEventSchemaPlugin() {
  return {
    id: 'formgate-stripe-events',
    schema: {
      [STRIPE_EVENT_MODEL]: {
        fields: {
          stripeEventId: { type: 'string', required: true, index: true },
          type: { type: 'string', required: true },
          stripeSubscriptionId: { type: 'string', required: false, index: true },
          created: { type: 'number', required: true },
          outcome: { type: 'string', required: true },
        },
      },
    },
  } satisfies BetterAuthPlugin;
}

const iso = (v: Date | string | number | null | undefined): string | null => {
  if (v === null || v === undefined) return null;
  const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};
const status = (s: string | null | undefined): SubscriptionChange['status'] =>
  (SUBSCRIPTION_STATUSES as readonly string[]).includes(s ?? '') ? (s as SubscriptionChange['status']) : null;
const interval = (s: string | null | undefined): SubscriptionChange['interval'] =>
  s === 'month' || s === 'year' ? s : null;

/** The Stripe subscription an event is about (checkout session, subscription, invoice), if any. */
export function subscriptionIdOf(event: Stripe.Event): string | undefined {
  const o = event.data.object as unknown as Record<string, unknown>;
  const ref = (v: unknown) => (typeof v === 'string' ? v : (v as { id?: string } | null)?.id);
  switch (event.type) {
    case 'checkout.session.completed':
      return ref(o.subscription) ?? undefined;
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return ref(o.id);
    case 'invoice.payment_failed': {
      const parent = o.parent as { subscription_details?: { subscription?: unknown } } | null | undefined;
      return ref(parent?.subscription_details?.subscription) ?? ref(o.subscription) ?? undefined;
    }
    default:
      return undefined;
  }
}

export interface StripeEventHandlerDeps {
  adapter: () => OutboxAdapter;
  plans: PlanCatalog;
  record: SubscriptionRecorder;
  logger: Logger;
}

/**
 * What Formgate does with a Stripe event once the plugin applied it to its `subscription` table: one
 * `subscription.changed` for checkout completed, subscription created / updated / deleted and invoice payment failed,
 * then the event is remembered (so a redelivery is answered without being applied again, see `webhookGate`).
 * Throws when the change cannot be recorded yet: the webhook then answers 400 and Stripe delivers it again.
 */
export function stripeEventHandler(deps: StripeEventHandlerDeps) {
  const rowBy = async (field: 'id' | 'stripeSubscriptionId', value: string | undefined) =>
    value
      ? await deps.adapter().findOne<SubscriptionRow>({ model: SUBSCRIPTION_MODEL, where: [{ field, value }] })
      : null;

  const fromRow = (row: SubscriptionRow, changedAt: string, overrides: Partial<SubscriptionChange> = {}) => ({
    orgId: row.referenceId,
    planId: row.plan,
    status: status(row.status),
    interval: interval(row.billingInterval),
    periodStart: iso(row.periodStart),
    periodEnd: iso(row.periodEnd),
    cancelAtPeriodEnd: Boolean(row.cancelAtPeriodEnd || row.cancelAt),
    trialEnd: iso(row.trialEnd),
    stripeSubscriptionId: row.stripeSubscriptionId ?? null,
    changedAt,
    ...overrides,
  });

  const orgOfCustomer = async (customerId: string | undefined) => {
    if (!customerId) return undefined;
    const org = await deps
      .adapter()
      .findOne<{ id: string }>({ model: 'organization', where: [{ field: 'stripeCustomerId', value: customerId }] });
    return org?.id;
  };

  const fromSubscription = async (
    sub: Stripe.Subscription,
    changedAt: string,
    deleted: boolean,
  ): Promise<SubscriptionChange | undefined> => {
    const row = await rowBy('stripeSubscriptionId', sub.id);
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer?.id;
    const orgId = sub.metadata?.referenceId || row?.referenceId || (await orgOfCustomer(customerId));
    if (!orgId) return undefined;
    const item = sub.items?.data?.find((i) => planOfPrice(deps.plans, i.price?.id)) ?? sub.items?.data?.[0];
    const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
    return {
      orgId,
      planId: planOfPrice(deps.plans, item?.price?.id)?.id ?? row?.plan ?? deps.plans.defaultPlan,
      status: deleted ? 'canceled' : status(sub.status),
      interval: interval(item?.price?.recurring?.interval),
      periodStart: iso(item?.current_period_start ?? legacy.current_period_start),
      periodEnd: iso(item?.current_period_end ?? legacy.current_period_end),
      cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end || sub.cancel_at),
      trialEnd: iso(sub.trial_end),
      stripeSubscriptionId: sub.id,
      changedAt,
    };
  };

  const changeFor = async (event: Stripe.Event): Promise<SubscriptionChange | undefined> => {
    const changedAt = new Date(event.created * 1000).toISOString();
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        if (session.mode !== 'subscription') return undefined;
        const subId = subscriptionIdOf(event);
        const row =
          (await rowBy('id', session.metadata?.subscriptionId)) ?? (await rowBy('stripeSubscriptionId', subId));
        // The plugin applies the checkout from the subscription it retrieves from Stripe; if that failed it only
        // logged: answer 400 so Stripe delivers the event again.
        if (!row || row.stripeSubscriptionId !== subId)
          throw new Error(`checkout session ${session.id} was not applied to a subscription (yet)`);
        return fromRow(row, changedAt);
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return fromSubscription(event.data.object, changedAt, event.type === 'customer.subscription.deleted');
      case 'invoice.payment_failed': {
        const row = await rowBy('stripeSubscriptionId', subscriptionIdOf(event));
        if (!row) return undefined;
        // The plugin ignores invoices. A failed payment of a live subscription makes it past due (Stripe says so
        // itself in the customer.subscription.updated that follows); the plugin's row says so at once.
        const pastDue = row.status === 'active' || row.status === 'trialing' ? 'past_due' : row.status;
        if (pastDue !== row.status)
          await deps.adapter().update({
            model: SUBSCRIPTION_MODEL,
            where: [{ field: 'id', value: row.id }],
            update: { status: pastDue, updatedAt: new Date() },
          });
        return fromRow(row, changedAt, { status: status(pastDue) });
      }
      default:
        return undefined;
    }
  };

  return {
    /** The plugin's `onEvent`: runs after the plugin applied the event. */
    async onEvent(event: Stripe.Event) {
      const change = await changeFor(event);
      if (change) await deps.record(subscriptionEventId(event.id), change);
      else if (subscriptionIdOf(event))
        deps.logger.warn(
          { stripeEventId: event.id, type: event.type },
          'Stripe event about a subscription of no known organization: ignored',
        );
      await remember(deps.adapter(), event, change ? 'applied' : 'ignored');
    },
  };
}

/** Remembers a handled Stripe event (dedupe and ordering, see `webhookGate`). */
export async function remember(db: OutboxAdapter, event: Stripe.Event, outcome: string) {
  await db.create({
    model: STRIPE_EVENT_MODEL,
    data: {
      stripeEventId: event.id,
      type: event.type,
      stripeSubscriptionId: subscriptionIdOf(event) ?? null,
      created: event.created,
      outcome,
    },
  });
}

/**
 * In front of the plugin's webhook endpoint (a better-auth `onRequest`): a correctly signed Stripe event that was
 * already handled is answered 200 without being applied again, and one older (by Stripe's `created`) than an event
 * already applied to the same subscription is answered 200 and not applied — the plugin writes what each event says
 * without comparing, so a late delivery would otherwise roll its `subscription` row back. Anything else (a bad or
 * missing signature included) goes on to the plugin, which verifies and answers.
 */
export function webhookGate(deps: { stripe: Stripe; webhookSecret: string; logger: Logger }) {
  return async (request: Request, ctx: { adapter: unknown }): Promise<{ response: Response } | undefined> => {
    if (request.method !== 'POST' || !new URL(request.url).pathname.endsWith('/stripe/webhook')) return undefined;
    const signature = request.headers.get('stripe-signature');
    if (!signature) return undefined;
    let event: Stripe.Event;
    try {
      event = await deps.stripe.webhooks.constructEventAsync(
        await request.clone().text(),
        signature,
        deps.webhookSecret,
      );
    } catch {
      return undefined;
    }
    const db = ctx.adapter as OutboxAdapter;
    const seen = await db.findOne<StripeEventRow>({
      model: STRIPE_EVENT_MODEL,
      where: [{ field: 'stripeEventId', value: event.id }],
    });
    if (seen) return { response: Response.json({ success: true, duplicate: true }) };
    const subId = subscriptionIdOf(event);
    if (subId) {
      const newest = (
        await db.findMany<StripeEventRow>({
          model: STRIPE_EVENT_MODEL,
          where: [
            { field: 'stripeSubscriptionId', value: subId },
            { field: 'outcome', value: 'applied' },
          ],
          sortBy: { field: 'created', direction: 'desc' },
          limit: 1,
        })
      )[0];
      if (newest && newest.created > event.created) {
        deps.logger.info(
          { stripeEventId: event.id, type: event.type, newerEventId: newest.stripeEventId },
          'Stripe event older than one already applied to its subscription: not applied',
        );
        await remember(db, event, 'stale');
        return { response: Response.json({ success: true, stale: true }) };
      }
    }
    return undefined;
  };
}
