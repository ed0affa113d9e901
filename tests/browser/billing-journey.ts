import { eventually } from '@formgate/kit/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotBoth, seriousA11yViolations } from '../harness/chromium.ts';
import type { StripeStandIn } from '../harness/stripe-stand-in.ts';

/** A Formgate on the billing journey's plans (`BILLING_JOURNEY_PLANS_FILE`) taking payments through `stripe`. */
export interface BillingJourneyTarget {
  url: string;
  mailLink(email: string, subject: RegExp): Promise<string>;
  stripe: StripeStandIn;
}

/**
 * Issue 13's journey in real Chromium: a free organization goes over its 3 submissions, sees the 2 held ones waiting
 * on the billing screen, upgrades — Stripe's checkout is a stand-in page whose "Pay" returns to the success URL —,
 * the signed `checkout.session.completed` webhook arrives, and the held submissions appear in the dashboard.
 */
export function describeBillingJourney(suite: string, target: () => BillingJourneyTarget) {
  const email = `grace.${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  let app: BillingJourneyTarget;
  let browser: Browser;
  let page: Page;
  let form: { id: string; key: string; slug: string };
  const posted: string[] = [];

  async function screen(name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-billing`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  let numbered = 0;
  /** Posts "Lead number N", N counting up across the journey. */
  const post = async () => {
    const i = ++numbered;
    const res = await fetch(`${app.url}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `message=${encodeURIComponent(`Lead number ${i}`)}`,
    });
    expect(res.status).toBe(200);
    posted.push(((await res.json()) as { id: string }).id);
  };
  const listed = (query = '') =>
    page.evaluate(
      async ([id, q]) => {
        const res = await fetch(`/api/v1/forms/${id}/submissions${q}`);
        return ((await res.json()) as { data: { id: string }[] }).data.map((s) => s.id);
      },
      [form.id, query] as const,
    );

  const usage = () =>
    page.evaluate(async () => {
      const res = await fetch('/api/v1/billing/usage');
      return ((await res.json()) as { submissions: { used: number; held: number } }).submissions;
    });

  describe.sequential(`a free organization over its plan upgrades through Stripe (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      // Stripe's hosted checkout cannot be reached here: a stand-in whose "Pay" goes back to the success URL.
      await context.route(/^https:\/\/checkout\.stripe\.com\//, (route) =>
        route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: `<!doctype html><html lang="en"><title>Checkout (stand-in)</title><main><h1>Stand-in checkout</h1>
<a href="${app.stripe.lastCheckout().successUrl.replace(/"/g, '&quot;')}">Pay</a></main></html>`,
        }),
      );
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('signs up, onboards and creates a form on the free plan', async () => {
      await page.goto(`${app.url}/sign-up`);
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Check your email' }).waitFor();
      await page.goto(await app.mailLink(email, /verify/i));
      await page.getByRole('link', { name: 'Continue' }).click();
      await page.waitForURL(/\/onboard$/);
      await page.getByLabel('Organization name').fill('Compilers Inc');
      await page.getByRole('button', { name: 'Create organization' }).click();
      // Once seen stuck here in CI (distributed, 30 s, not reproduced): say where the page was and what it showed.
      await page.waitForURL(/\/dashboard\/forms$/).catch(async (err: Error) => {
        const text = await page
          .locator('body')
          .textContent()
          .catch(() => '');
        const shown = (text ?? '').replace(/\s+/g, ' ').slice(0, 600);
        throw new Error(`${err.message}\nstill at ${page.url()}, showing: ${shown}`);
      });
      await page.goto(`${app.url}/dashboard/forms/create`);
      await page.getByLabel('Name', { exact: true }).fill('Leads');
      await page.getByRole('button', { name: 'Create form' }).click();
      await page.waitForURL(/\/dashboard\/forms\/[^/]+\/example$/);
      const slug = decodeURIComponent(page.url().split('/').at(-2) ?? '');
      form = await page.evaluate(async (s) => {
        const res = await fetch(`/api/v1/forms?slug=${encodeURIComponent(s)}`);
        const [found] = ((await res.json()) as { data: { id: string; key: string; slug: string }[] }).data;
        if (!found) throw new Error(`no form ${s}`);
        return found;
      }, slug);
      await page.goto(`${app.url}/dashboard/billing`);
      await page.getByRole('heading', { name: 'Billing' }).waitFor();
      await page.getByText('Free', { exact: true }).first().waitFor();
      await screen('free-plan');
    });

    it('goes over the plan: every submission is accepted, those over it are held and waiting', async () => {
      for (const _ of [1, 2, 3]) await post();
      await eventually(async () => expect(await listed()).toHaveLength(3), 20_000);
      // Ingest learns of the full quota from billing's view (a moment later); from then on each submission is held,
      // none refused.
      for (;;) {
        await post();
        if ((await listed('?held=true')).length > 0) break;
        expect(posted.length, 'ingest never held a submission over the plan').toBeLessThan(40);
        await new Promise((r) => setTimeout(r, 250));
      }
      await post();
      const held = await eventually(async () => {
        const now = await listed('?held=true');
        expect(now.length).toBeGreaterThanOrEqual(2);
        return now;
      }, 20_000);
      // A burst more, at once (through both ingest instances where there are two): all held, none refused.
      await Promise.all([0, 1, 2, 3].map(() => post()));
      // Settled once every post is listed, shown or held (the snapshot above may have missed one still on its way).
      const allHeld = await eventually(async () => {
        const now = await listed('?held=true');
        expect(now.length + (await listed()).length).toBe(posted.length);
        expect(now.length).toBeGreaterThanOrEqual(held.length + 4);
        return now;
      }, 20_000);
      const visible = await listed();
      // Every accepted submission is either shown or held: nothing lost; billing counts exactly those shown.
      expect([...visible, ...allHeld].sort()).toEqual([...posted].sort());
      await eventually(
        async () => expect(await usage()).toMatchObject({ used: visible.length, held: allHeld.length }),
        20_000,
      );
      held.splice(0, held.length, ...allHeld);
      await page.goto(`${app.url}/dashboard/billing`);
      await page
        .getByText(new RegExp(`${held.length} submissions are held until you upgrade`))
        .waitFor({ timeout: 20_000 });
      await screen('held-waiting');
    });

    it('upgrades through the stand-in checkout; the webhook arrives and the held submissions appear', async () => {
      await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
      await page.getByRole('heading', { name: 'Stand-in checkout' }).waitFor({ timeout: 20_000 });
      const checkout = app.stripe.lastCheckout();
      expect(checkout.price).toBe('price_1PgafmB7WZ01zgkW6dKueIc5');
      // Back through the plugin's own success endpoint, on to the billing screen.
      expect(decodeURIComponent(checkout.successUrl)).toContain('/dashboard/billing?checkout=success');
      await page.getByRole('link', { name: 'Pay' }).click();
      await page.waitForURL(/\/dashboard\/billing/);
      await app.stripe.completeCheckout(app.url);
      // The screen asks again until the paid plan shows.
      await page.getByText('Pro', { exact: true }).first().waitFor({ timeout: 30_000 });
      await eventually(async () => expect(await listed('?held=true')).toEqual([]), 30_000);
      expect((await listed()).sort()).toEqual([...posted].sort());
      await eventually(async () => expect(await usage()).toMatchObject({ used: posted.length, held: 0 }), 20_000);
      await page.reload();
      await expect(page.getByText(/submissions? (is|are) held/).count()).resolves.toBe(0);
      await screen('upgraded');
      await page.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/submissions`);
      await page.getByText(`Lead number ${numbered}`).first().waitFor();
    });
  });
}
