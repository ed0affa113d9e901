import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { EventPublisher } from '@formgate/bus';
import { decodeEvent, type SubscriptionChanged, Topics } from '@formgate/contracts';
import { createLogger, planCatalog, systemClock, systemIds } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { type Backend, startStripeMock } from '@formgate/kit/testing/backends';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountsStore } from '../src/accounts-store.ts';
import { createAccounts } from '../src/create-accounts.ts';
import type { OutboxAdapter } from '../src/org-events/schema.ts';

/** stripe-mock's fixture subscription has this price: the plans below sell "pro" at it. */
const FIXTURE_PRICE = 'price_1PgafmB7WZ01zgkW6dKueIc5';
const WEBHOOK_SECRET = 'whsec_contract';
const signer = new Stripe('sk_test_contract');
const plans = planCatalog({
  defaultPlan: 'free',
  plans: [
    {
      id: 'free',
      name: 'Free',
      description: '',
      prices: { monthly: 0, yearly: 0, currency: 'usd' },
      stripe: {},
      trialDays: 0,
      limits: {
        submissionsPerMonth: 10,
        emailsPerMonth: 10,
        forms: null,
        members: null,
        fileStorageMb: null,
        maxFileMb: null,
        retentionDays: null,
      },
      features: [],
    },
    {
      id: 'pro',
      name: 'Pro',
      description: '',
      prices: { monthly: 1500, yearly: 15000, currency: 'usd' },
      stripe: { monthlyPriceId: FIXTURE_PRICE },
      trialDays: 0,
      limits: {
        submissionsPerMonth: 1000,
        emailsPerMonth: 1000,
        forms: null,
        members: null,
        fileStorageMb: null,
        maxFileMb: null,
        retentionDays: null,
      },
      features: [],
    },
    {
      id: 'business',
      name: 'Business',
      description: '',
      prices: { monthly: 7500, yearly: 75000, currency: 'usd' },
      stripe: { monthlyPriceId: 'price_business' },
      trialDays: 0,
      limits: {
        submissionsPerMonth: 9000,
        emailsPerMonth: 9000,
        forms: null,
        members: null,
        fileStorageMb: null,
        maxFileMb: null,
        retentionDays: null,
      },
      features: [],
    },
  ],
});

export interface StripeWebhookTarget {
  name: string;
  /** A fresh accounts database. */
  open: () => Promise<{ store: AccountsStore; close: () => Promise<void> }>;
}

/**
 * The webhook path of Stripe billing on one accounts database (SQLite or MongoDB/FerretDB): signed events through the
 * gate, the stripe plugin (checkout completion retrieves the subscription from a real stripe-mock) and the outbox to
 * `billing.subscription`.
 */
export function runStripeWebhookContract(target: StripeWebhookTarget) {
  describe(`Stripe webhooks: ${target.name}`, () => {
    let mock: Backend;
    let db: Awaited<ReturnType<StripeWebhookTarget['open']>>;
    let accounts: ReturnType<typeof createAccounts>;
    let published: { key: string; event: SubscriptionChanged }[];
    let mails: { to: string; text: string }[];

    beforeAll(async () => {
      mock = await startStripeMock(resolve(import.meta.dirname, '../../../.run/test'));
    }, 120_000);
    afterAll(async () => mock?.stop());

    beforeEach(async () => {
      db = await target.open();
      published = [];
      mails = [];
      const bus: EventPublisher = {
        async publish(topic, messages) {
          if (topic !== Topics.billingSubscription) return;
          for (const m of messages)
            published.push({ key: m.key, event: decodeEvent(Topics.billingSubscription, m.value) });
        },
      };
      accounts = createAccounts({
        store: db.store,
        bus,
        clock: systemClock,
        ids: systemIds,
        logger: createLogger({ level: 'silent', name: 'stripe-contract' }),
        mailer: {
          send: async (m) => {
            mails.push({ to: m.to, text: m.text ?? '' });
            return { messageId: randomUUID() };
          },
          close: async () => {},
        },
        publicUrl: 'http://127.0.0.1:3999',
        secret: randomBytes(32).toString('hex'),
        trustedOrigins: ['http://127.0.0.1:3999'],
        signInPerMinute: 1000,
        invitationTtlSeconds: 3600,
        lookupsPerMinute: 1000,
        stripe: { secretKey: 'sk_test_contract', webhookSecret: WEBHOOK_SECRET, apiUrl: mock.value },
        plans,
      });
      await accounts.start();
    });
    afterEach(async () => {
      await accounts.stop();
      await db.close();
    });

    const adapter = async () => (await accounts.auth.$context).adapter as unknown as OutboxAdapter;
    const send = async (event: Record<string, unknown>) => {
      const payload = JSON.stringify({ object: 'event', livemode: false, ...event });
      const res = await accounts.authHandler(
        new Request('http://127.0.0.1:3999/api/auth/stripe/webhook', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
          },
          body: payload,
        }),
      );
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const subscription = (id: string, orgId: string, price: string, cancelAtPeriodEnd = false) => ({
      id,
      object: 'subscription',
      customer: 'cus_contract',
      status: 'active',
      cancel_at_period_end: cancelAtPeriodEnd,
      cancel_at: null,
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
            price: { id: price, recurring: { interval: 'month' } },
          },
        ],
      },
    });
    const row = async (id: string) =>
      (await adapter()).findOne<{ plan: string; status: string; cancelAtPeriodEnd: boolean }>({
        model: 'subscription',
        where: [{ field: 'id', value: id }],
      });

    /** A browser-like call to better-auth (the product's origin, cookies kept in `jar`). */
    const call = async (jar: Map<string, string>, method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { origin: 'http://127.0.0.1:3999', 'x-formgate-client-ip': '10.0.0.1' };
      if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await accounts.authHandler(
        new Request(new URL(path, 'http://127.0.0.1:3999'), {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      for (const line of res.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    it('lets an owner start a checkout for the organization (the plugin’s queries on this database)', async () => {
      const jar = new Map<string, string>();
      const email = `owner-${randomUUID()}@example.test`;
      const up = await call(jar, 'POST', '/api/auth/sign-up/email', {
        email,
        password: 'correct horse battery',
        name: 'O',
      });
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      const link = mails.find((m) => m.to === email)?.text.match(/https?:\/\/\S+/)?.[0];
      expect((await call(jar, 'GET', link as string)).status).toBe(302);
      const org = await call(jar, 'POST', '/api/auth/organization/create', {
        name: 'Acme',
        slug: `acme-${randomUUID()}`,
      });
      expect(org.status, JSON.stringify(org.body)).toBe(200);

      const upgrade = await call(jar, 'POST', '/api/auth/subscription/upgrade', {
        plan: 'pro',
        referenceId: org.body.id,
      });
      expect(upgrade.status, JSON.stringify(upgrade.body)).toBe(200);
      expect(upgrade.body.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
      const a = await adapter();
      expect(
        await a.findOne({ model: 'subscription', where: [{ field: 'referenceId', value: org.body.id }] }),
      ).toMatchObject({ plan: 'pro', status: 'incomplete', stripeCustomerId: expect.stringMatching(/^cus_/) });
      expect(await a.findOne({ model: 'organization', where: [{ field: 'id', value: org.body.id }] })).toMatchObject({
        stripeCustomerId: expect.stringMatching(/^cus_/),
      });
      const listed = await call(jar, 'GET', `/api/auth/subscription/list?referenceId=${org.body.id}`);
      expect(listed).toEqual({ status: 200, body: [] });
    });

    it('applies each event once, in Stripe order, and publishes one subscription.changed per applied event', async () => {
      const a = await adapter();
      const org = await a.create<{ id: string }>({
        model: 'organization',
        data: { name: 'Acme', slug: `acme-${randomUUID()}`, createdAt: new Date() },
      });
      // What the upgrade endpoint leaves behind before the checkout completes.
      const local = await a.create<{ id: string }>({
        model: 'subscription',
        data: { plan: 'pro', referenceId: org.id, stripeCustomerId: 'cus_contract', status: 'incomplete', seats: 1 },
      });
      const sub = `sub_${randomBytes(6).toString('hex')}`;
      const t0 = 1_790_000_100;

      const checkout = await send({
        id: `evt_checkout_${sub}`,
        type: 'checkout.session.completed',
        created: t0,
        data: {
          object: {
            id: `cs_${sub}`,
            object: 'checkout.session',
            mode: 'subscription',
            subscription: sub,
            client_reference_id: org.id,
            metadata: { subscriptionId: local.id, referenceId: org.id },
          },
        },
      });
      expect(checkout).toEqual({ status: 200, body: { success: true } });
      expect(await row(local.id)).toMatchObject({ plan: 'pro', status: 'active' });

      const business = { id: `evt_business_${sub}`, type: 'customer.subscription.updated', created: t0 + 20 };
      const toBusiness = { ...business, data: { object: subscription(sub, org.id, 'price_business') } };
      expect((await send(toBusiness)).status).toBe(200);
      expect(await row(local.id)).toMatchObject({ plan: 'business' });
      // Redelivered, then a change made earlier arriving late: neither is applied.
      expect((await send(toBusiness)).body).toMatchObject({ duplicate: true });
      const late = await send({
        id: `evt_late_${sub}`,
        type: 'customer.subscription.updated',
        created: t0 + 10,
        data: { object: subscription(sub, org.id, FIXTURE_PRICE, true) },
      });
      expect(late.body).toMatchObject({ stale: true });
      expect(await row(local.id)).toMatchObject({ plan: 'business', cancelAtPeriodEnd: false });

      const deleted = await send({
        id: `evt_deleted_${sub}`,
        type: 'customer.subscription.deleted',
        created: t0 + 30,
        data: { object: { ...subscription(sub, org.id, 'price_business'), status: 'canceled' } },
      });
      expect(deleted.status).toBe(200);
      expect(await row(local.id)).toMatchObject({ status: 'canceled' });

      await eventually(() => expect(published).toHaveLength(3));
      expect(published.map((p) => [p.key, p.event.id, p.event.data.planId, p.event.data.status])).toEqual([
        [org.id, `stripe:evt_checkout_${sub}`, 'pro', 'active'],
        [org.id, `stripe:evt_business_${sub}`, 'business', 'active'],
        [org.id, `stripe:evt_deleted_${sub}`, 'business', 'canceled'],
      ]);
      expect(published[1]?.event.data.changedAt).toBe(new Date((t0 + 20) * 1000).toISOString());
    });

    it('answers 400 and records nothing when the checkout could not be applied, so Stripe delivers it again', async () => {
      const a = await adapter();
      const org = await a.create<{ id: string }>({
        model: 'organization',
        data: { name: 'Acme', slug: `acme-${randomUUID()}`, createdAt: new Date() },
      });
      const event = {
        id: `evt_orphan_${randomBytes(4).toString('hex')}`,
        type: 'checkout.session.completed',
        created: 1_790_000_000,
        data: {
          object: {
            id: 'cs_orphan',
            object: 'checkout.session',
            mode: 'subscription',
            subscription: 'sub_orphan',
            client_reference_id: org.id,
            metadata: { referenceId: org.id },
          },
        },
      };
      expect((await send(event)).status).toBe(400);
      // Not remembered: the redelivery is handled again (and fails again), never answered as a duplicate.
      expect((await send(event)).status).toBe(400);
      await new Promise((r) => setTimeout(r, 200));
      expect(published).toEqual([]);
    });
  });
}
