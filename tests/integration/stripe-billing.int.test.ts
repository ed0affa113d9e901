import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { Topics } from '@formgate/contracts';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Org } from '../harness/accounts.ts';
import type { BrowserSession } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { STRIPE_MOCK_FIXTURE_PRICE, type StripeStandIn, startStripeStandIn } from '../harness/stripe-stand-in.ts';

/**
 * Billing through better-auth's stripe plugin against a real stripe-mock (every Stripe API call) and webhook events
 * signed with the webhook secret exactly as Stripe signs them. stripe-mock is stateless: it answers fixtures, so the
 * subscription the plugin retrieves after a checkout is stripe-mock's fixture, whose price id is the one below — the
 * test's plans file sells "pro" at that price.
 */
const FIXTURE_PRICE = STRIPE_MOCK_FIXTURE_PRICE;

interface Changed {
  id: string;
  data: { orgId: string; planId: string; status: string | null; cancelAtPeriodEnd: boolean; changedAt: string };
}

let stand: StripeStandIn;
let app: TestApp;
let bus: EventBus | undefined;
const changes: Changed[] = [];

beforeAll(async () => {
  stand = await startStripeStandIn();
  const dir = mkdtempSync(join(tmpdir(), 'fg-plans-'));
  const plansFile = join(dir, 'plans.json');
  writeFileSync(
    plansFile,
    JSON.stringify({
      defaultPlan: 'free',
      plans: [
        { id: 'free', name: 'Free', limits: { submissionsPerMonth: 10, emailsPerMonth: 10 } },
        {
          id: 'pro',
          name: 'Pro',
          stripe: { monthlyPriceId: FIXTURE_PRICE, yearlyPriceId: 'price_pro_yearly' },
          trialDays: 14,
          limits: { submissionsPerMonth: 1000, emailsPerMonth: 1000 },
        },
        {
          id: 'business',
          name: 'Business',
          stripe: { monthlyPriceId: 'price_business_monthly' },
          limits: { submissionsPerMonth: 10000, emailsPerMonth: 10000 },
        },
      ],
    }),
  );
  app = await startTestApp(
    {
      ...stand.env,
      PLANS_FILE: plansFile,
    },
    {
      exposeBus: (b) => {
        bus = b;
      },
    },
  );
  await bus?.replay(Topics.billingSubscription, (m) => changes.push(JSON.parse(m.value) as Changed));
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await stand?.stop();
});

async function ownerWithOrg(): Promise<{ owner: BrowserSession; org: Org }> {
  const owner = await app.accounts.signUp();
  const org = await app.accounts.createOrg(owner);
  return { owner, org };
}

function sendWebhook(event: Record<string, unknown>, secret?: string) {
  return stand.sendEvent(app.baseUrl, event, secret);
}

const subscriptionObject = (
  id: string,
  orgId: string,
  o: { status?: string; price?: string; cancelAtPeriodEnd?: boolean } = {},
) => ({
  id,
  object: 'subscription',
  customer: 'cus_formgate',
  status: o.status ?? 'active',
  cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
  cancel_at: null,
  canceled_at: null,
  ended_at: null,
  trial_start: null,
  trial_end: null,
  metadata: { referenceId: orgId },
  items: {
    object: 'list',
    data: [
      {
        id: `si_${id}`,
        quantity: 1,
        current_period_start: 1_790_000_000,
        current_period_end: 1_792_592_000,
        price: { id: o.price ?? FIXTURE_PRICE, recurring: { interval: 'month' } },
      },
    ],
  },
});

const changesOf = (orgId: string) => changes.filter((c) => c.data.orgId === orgId);

describe('Stripe billing (stripe plugin, organization subscriptions)', () => {
  it('upgrade returns a checkout URL that comes back to the billing screen, whatever the client asks', async () => {
    const { owner, org } = await ownerWithOrg();
    const reply = await owner.call('POST', '/api/auth/subscription/upgrade', {
      plan: 'pro',
      referenceId: org.id,
      successUrl: '/somewhere-else',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    // stripe-mock echoes the parameters it was sent.
    expect(decodeURIComponent(reply.body.success_url)).toContain('/dashboard/billing?checkout=success');
    expect(reply.body.cancel_url).toMatch(/\/dashboard\/billing\?checkout=cancel$/);
    expect(reply.body.client_reference_id).toBe(org.id);
    expect(reply.body.line_items?.data?.[0]?.price?.id ?? FIXTURE_PRICE).toBe(FIXTURE_PRICE);

    // What reached Stripe: the organization's customer, pro's monthly price, the 14-day trial of a first subscription.
    const created = stand.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').at(-1);
    expect(created?.body.get('line_items[0][price]')).toBe(FIXTURE_PRICE);
    expect(created?.body.get('subscription_data[trial_period_days]')).toBe('14');
    expect(created?.body.get('client_reference_id')).toBe(org.id);
    expect(created?.body.get('cancel_url')).toMatch(/\/dashboard\/billing\?checkout=cancel$/);
    // The organization's Stripe customer is looked up by its id in the metadata (stripe-mock's search always answers
    // with its fixture customer, so no customer is created here).
    const search = stand.calls.find((c) => c.path.startsWith('/v1/customers/search'));
    expect(decodeURIComponent(search?.path ?? '')).toContain(`metadata["organizationId"]:"${org.id}"`);
    expect(created?.body.get('customer')).toMatch(/^cus_/);

    const yearly = await owner.call('POST', '/api/auth/subscription/upgrade', {
      plan: 'pro',
      annual: true,
      referenceId: org.id,
    });
    expect(yearly.status, JSON.stringify(yearly.body)).toBe(200);
    const annual = stand.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').at(-1);
    expect(annual?.body.get('line_items[0][price]')).toBe('price_pro_yearly');

    const unknown = await owner.call('POST', '/api/auth/subscription/upgrade', { plan: 'free', referenceId: org.id });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('SUBSCRIPTION_PLAN_NOT_FOUND');
  });

  it('only owners and admins may act; members may list; another organization is denied', async () => {
    const { owner, org } = await ownerWithOrg();
    const member = await app.accounts.addMember(owner, org, 'member');
    const admin = await app.accounts.addMember(owner, org, 'admin');
    const other = await ownerWithOrg();

    const denied = await member.call('POST', '/api/auth/subscription/upgrade', { plan: 'pro', referenceId: org.id });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      code: 'BILLING_NOT_ALLOWED',
      message: 'Only owners and admins of the organization can manage its billing',
    });
    for (const path of ['cancel', 'restore', 'billing-portal'])
      expect((await member.call('POST', `/api/auth/subscription/${path}`, { referenceId: org.id })).status).toBe(403);
    const listed = await member.call('GET', `/api/auth/subscription/list?referenceId=${org.id}`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body).toEqual([]);

    const byAdmin = await admin.call('POST', '/api/auth/subscription/upgrade', { plan: 'pro', referenceId: org.id });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);

    const foreign = await other.owner.call('POST', '/api/auth/subscription/upgrade', {
      plan: 'pro',
      referenceId: org.id,
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      code: 'BILLING_NOT_ALLOWED',
      message: 'You are not a member of this organization',
    });
    expect((await other.owner.call('GET', `/api/auth/subscription/list?referenceId=${org.id}`)).status).toBe(403);
  });

  it('webhooks: checkout, portal, update, cancel, restore, payment failed, deleted; replays and late events', async () => {
    const { owner, org } = await ownerWithOrg();
    const upgrade = await owner.call('POST', '/api/auth/subscription/upgrade', { plan: 'pro', referenceId: org.id });
    expect(upgrade.status).toBe(200);
    // A real checkout session carries the plugin's metadata (its subscription row's id); stripe-mock's does not, so
    // the test reads the row the upgrade created ('incomplete' until the checkout completes).
    const authDb = openSqlite(join(app.dataDir, 'auth.db'));
    const row = authDb.prepare('select id, status from subscription where referenceId = ?').get(org.id) as
      | { id: string; status: string }
      | undefined;
    authDb.close();
    expect(row?.status).toBe('incomplete');
    const localId = row?.id as string;
    const subId = `sub_${org.id.replace(/[^A-Za-z0-9]/g, '')}`;
    const t0 = Math.floor(Date.now() / 1000);
    const evt = (n: string) => `evt_${n}_${subId}`;

    // Checkout completed: the plugin retrieves the subscription from stripe-mock (its fixture, at pro's price).
    const checkout = await sendWebhook({
      id: evt('checkout'),
      type: 'checkout.session.completed',
      created: t0,
      data: {
        object: {
          id: `cs_${subId}`,
          object: 'checkout.session',
          mode: 'subscription',
          subscription: subId,
          client_reference_id: org.id,
          metadata: { subscriptionId: localId, referenceId: org.id },
        },
      },
    });
    expect(checkout.status, await checkout.clone().text()).toBe(200);
    await eventually(() => expect(changesOf(org.id)).toHaveLength(1));
    expect(changesOf(org.id)[0]).toMatchObject({
      id: `stripe:${evt('checkout')}`,
      data: { planId: 'pro', status: 'active', changedAt: new Date(t0 * 1000).toISOString() },
    });
    const listed = await owner.call('GET', `/api/auth/subscription/list?referenceId=${org.id}`);
    expect(listed.body).toMatchObject([{ plan: 'pro', status: 'active', stripeSubscriptionId: subId }]);

    // The billing portal and cancel (a portal session with the cancel flow), against stripe-mock.
    const portal = await owner.call('POST', '/api/auth/subscription/billing-portal', { referenceId: org.id });
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    expect(portal.body.url).toMatch(/^https:\/\//);
    const cancel = await owner.call('POST', '/api/auth/subscription/cancel', { referenceId: org.id });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.url).toMatch(/^https:\/\//);

    // Stripe confirms the cancellation at period end.
    const canceling = await sendWebhook({
      id: evt('cancel'),
      type: 'customer.subscription.updated',
      created: t0 + 10,
      data: { object: subscriptionObject(subId, org.id, { cancelAtPeriodEnd: true }) },
    });
    expect(canceling.status).toBe(200);
    await eventually(() => expect(changesOf(org.id)).toHaveLength(2));
    expect(changesOf(org.id)[1]?.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });

    // A replay of the same event: answered, not applied again, no second subscription.changed.
    const replay = await sendWebhook({
      id: evt('cancel'),
      type: 'customer.subscription.updated',
      created: t0 + 10,
      data: { object: subscriptionObject(subId, org.id, { cancelAtPeriodEnd: true }) },
    });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ duplicate: true });

    // A late delivery of an older change (made before the cancellation) rolls nothing back.
    const late = await sendWebhook({
      id: evt('late'),
      type: 'customer.subscription.updated',
      created: t0 + 5,
      data: { object: subscriptionObject(subId, org.id, { price: 'price_business_monthly' }) },
    });
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ stale: true });
    const afterLate = await owner.call('GET', `/api/auth/subscription/list?referenceId=${org.id}`);
    expect(afterLate.body).toMatchObject([{ plan: 'pro', cancelAtPeriodEnd: true }]);

    // Restore (the spec's POST /api/auth/subscription/restore): stripe-mock takes the update.
    const restore = await owner.call('POST', '/api/auth/subscription/restore', { referenceId: org.id });
    expect(restore.status, JSON.stringify(restore.body)).toBe(200);
    const restored = await owner.call('GET', `/api/auth/subscription/list?referenceId=${org.id}`);
    expect(restored.body).toMatchObject([{ plan: 'pro', cancelAtPeriodEnd: false }]);

    // A failed renewal payment: past due.
    const failed = await sendWebhook({
      id: evt('failed'),
      type: 'invoice.payment_failed',
      created: t0 + 20,
      data: {
        object: {
          id: `in_${subId}`,
          object: 'invoice',
          customer: 'cus_formgate',
          parent: { type: 'subscription_details', subscription_details: { subscription: subId } },
        },
      },
    });
    expect(failed.status).toBe(200);
    await eventually(() => expect(changesOf(org.id)).toHaveLength(3));
    expect(changesOf(org.id)[2]).toMatchObject({ id: `stripe:${evt('failed')}`, data: { status: 'past_due' } });

    // The subscription ends.
    const deleted = await sendWebhook({
      id: evt('deleted'),
      type: 'customer.subscription.deleted',
      created: t0 + 30,
      data: { object: subscriptionObject(subId, org.id, { status: 'canceled' }) },
    });
    expect(deleted.status).toBe(200);
    await eventually(() => expect(changesOf(org.id)).toHaveLength(4));
    expect(changesOf(org.id)[3]?.data).toMatchObject({ planId: 'pro', status: 'canceled' });

    // Each Stripe event produced exactly one subscription.changed, in order of Stripe's clock.
    await new Promise((r) => setTimeout(r, 300));
    const ids = changesOf(org.id).map((c) => c.id);
    expect(ids).toEqual(['checkout', 'cancel', 'failed', 'deleted'].map((n) => `stripe:${evt(n)}`));
    const times = changesOf(org.id).map((c) => c.data.changedAt);
    expect([...times].sort()).toEqual(times);
  });

  it('a webhook with a bad signature is refused with 400 and applies nothing', async () => {
    const { org } = await ownerWithOrg();
    const before = changesOf(org.id).length;
    const bad = await sendWebhook(
      {
        id: 'evt_forged',
        type: 'customer.subscription.updated',
        created: Math.floor(Date.now() / 1000),
        data: { object: subscriptionObject('sub_forged', org.id) },
      },
      'whsec_not_the_secret',
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'FAILED_TO_CONSTRUCT_STRIPE_EVENT' });
    const unsigned = await fetch(`${app.baseUrl}/api/auth/stripe/webhook`, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(400);
    await new Promise((r) => setTimeout(r, 300));
    expect(changesOf(org.id)).toHaveLength(before);
  });
});

describe('without Stripe keys', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
  }, 60_000);
  afterAll(async () => plain?.stop());

  it('starts, has no /api/auth/subscription/* and no webhook, and everything else works', async () => {
    const owner = await plain.accounts.signUp();
    const org = await plain.accounts.createOrg(owner);
    for (const path of ['upgrade', 'cancel', 'restore', 'billing-portal'])
      expect(
        (await owner.call('POST', `/api/auth/subscription/${path}`, { plan: 'pro', referenceId: org.id })).status,
      ).toBe(404);
    expect((await owner.call('GET', '/api/auth/subscription/list')).status).toBe(404);
    expect((await fetch(`${plain.baseUrl}/api/auth/stripe/webhook`, { method: 'POST', body: '{}' })).status).toBe(404);
    const form = await plain.createForm({ name: 'Still works' });
    expect(form.key).toBeTruthy();
  });
});
