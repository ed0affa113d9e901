import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { startStripeMock } from '@formgate/kit/testing/backends';
import Stripe from 'stripe';

/**
 * The price of the subscription stripe-mock answers for any id (it is stateless: fixtures only). A plans file that
 * sells a plan at this price makes a checkout completed on stripe-mock land on that plan.
 */
export const STRIPE_MOCK_FIXTURE_PRICE = 'price_1PgafmB7WZ01zgkW6dKueIc5';
/** Plans for billing journeys: free holds past 3 submissions a month; pro (at the fixture price) allows 1,000. */
export const BILLING_JOURNEY_PLANS_FILE = resolve(import.meta.dirname, 'plans/billing-journey.json');

const WEBHOOK_SECRET = 'whsec_formgate_journey';
// stripe-mock accepts only keys that look real: sk_test_ and letters or digits.
const SECRET_KEY = 'sk_test_formgatejourney';

/**
 * Stripe for end-to-end tests: a real stripe-mock behind a recording proxy (what Formgate asked Stripe), and
 * webhook events signed with the endpoint's secret exactly as Stripe signs them. `env` is what the gateway (or the
 * embedded host) needs to take payments through it.
 */
export async function startStripeStandIn() {
  const mock = await startStripeMock(resolve(import.meta.dirname, '../../.run/test'));
  const calls: { method: string; path: string; body: URLSearchParams }[] = [];
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    calls.push({ method: req.method ?? '', path: req.url ?? '', body: new URLSearchParams(body.toString()) });
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>;
    const answer = await fetch(`${mock.value}${req.url}`, {
      method: req.method,
      headers,
      ...(body.length ? { body } : {}),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  const apiUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const stripe = new Stripe(SECRET_KEY);

  /** The last checkout session Formgate created: whose, the plugin's subscription row, where Stripe returns to. */
  function lastCheckout() {
    const created = calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').at(-1);
    if (!created) throw new Error('no checkout session was created');
    return {
      referenceId: created.body.get('client_reference_id') ?? '',
      subscriptionId: created.body.get('metadata[subscriptionId]') ?? '',
      price: created.body.get('line_items[0][price]') ?? '',
      successUrl: created.body.get('success_url') ?? '',
    };
  }

  /** Posts a Stripe event to Formgate's webhook endpoint, signed with `secret` as Stripe signs it. */
  function sendEvent(appUrl: string, event: Record<string, unknown>, secret = WEBHOOK_SECRET) {
    const payload = JSON.stringify({ object: 'event', api_version: '2025-10-29.clover', livemode: false, ...event });
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret });
    return fetch(`${appUrl}/api/auth/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
  }

  return {
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: apiUrl },
    /** Every call Formgate made to Stripe, in order (stripe-mock echoes only some parameters back). */
    calls,
    sendEvent,
    lastCheckout,
    /** Sends `checkout.session.completed` for the last checkout, as Stripe does once the customer paid. */
    async completeCheckout(appUrl: string) {
      const checkout = lastCheckout();
      const sub = `sub_${checkout.subscriptionId.replace(/[^A-Za-z0-9]/g, '')}`;
      const res = await sendEvent(appUrl, {
        id: `evt_checkout_${sub}`,
        type: 'checkout.session.completed',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: `cs_${sub}`,
            object: 'checkout.session',
            mode: 'subscription',
            subscription: sub,
            client_reference_id: checkout.referenceId,
            metadata: { subscriptionId: checkout.subscriptionId, referenceId: checkout.referenceId },
          },
        },
      });
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
    },
    async stop() {
      await new Promise((ok) => proxy.close(ok));
      await mock.stop();
    },
  };
}

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;
