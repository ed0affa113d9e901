import {
  type BillingUsageDto,
  DEFAULT_FORM_SETTINGS,
  DEFAULT_PLANS,
  type PlansResponseDto,
  type SubscriptionDto,
} from '@formgate/contracts';
import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  formatLimit,
  formatPrice,
  formatRetentionLimit,
  formatStorageMb,
  yearlySavingPercent,
} from '../src/features/billing/billing.queries.ts';
import type { SessionData } from '../src/features/session/session.queries.ts';
import { leaveApp } from '../src/lib/leave-app.ts';
import { type RecordedRequest, startApi } from './api-server.ts';
import { renderApp, signedIn } from './render-app.tsx';

vi.setConfig({ testTimeout: 30_000 });
configure({ asyncUtilTimeout: 15_000 });

const apis: { close(): Promise<void> }[] = [];
afterEach(async () => {
  toast.dismiss();
  vi.restoreAllMocks();
  for (const a of apis.splice(0)) await a.close();
});

const CHECKOUT_URL = 'https://checkout.stripe.test/c/pay/cs_test_1';
const PORTAL_URL = 'https://billing.stripe.test/p/session/bps_1';

const plansResponse = (billingEnabled = true): PlansResponseDto => ({
  data: DEFAULT_PLANS.plans,
  defaultPlan: DEFAULT_PLANS.defaultPlan,
  billingEnabled,
});

const freeUsage = (over: Partial<BillingUsageDto> = {}): BillingUsageDto => ({
  period: '2026-11',
  plan: { id: 'free', name: 'Free' },
  subscription: null,
  submissions: { used: 40, max: 100, held: 0 },
  emails: { used: 10, max: 100, deferred: 0 },
  storage: { usedMb: 1.5, maxMb: 100 },
  ...over,
});

const proSubscription = (over: Partial<SubscriptionDto> = {}): SubscriptionDto => ({
  status: 'active',
  interval: 'month',
  periodStart: '2026-11-01T00:00:00.000Z',
  periodEnd: '2026-12-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  trialEnd: null,
  ...over,
});

const proUsage = (subscription: SubscriptionDto = proSubscription()): BillingUsageDto =>
  freeUsage({
    plan: { id: 'pro', name: 'Pro' },
    subscription,
    submissions: { used: 1200, max: 5000, held: 0 },
    emails: { used: 300, max: 5000, deferred: 0 },
  });

const aForm = (slug: string, name: string) => ({
  id: `form-${slug}`,
  name,
  slug,
  key: `key-${slug}`,
  settings: DEFAULT_FORM_SETTINGS,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  endpoint: `/f/key-${slug}`,
});

/**
 * The plans, usage and forms APIs and better-auth's stripe endpoints over real HTTP, from memory. `usage` is read on
 * every request, so a test can change it (a webhook landing, a restore).
 */
async function billingApi(state: {
  plans?: PlansResponseDto;
  usage?: BillingUsageDto;
  forms?: ReturnType<typeof aForm>[];
  answer?: (req: RecordedRequest) => { status?: number; body?: unknown } | undefined;
}) {
  const s = { plans: plansResponse(), usage: freeUsage(), forms: [] as ReturnType<typeof aForm>[], ...state };
  const api = await startApi((req) => {
    const special = s.answer?.(req);
    if (special) return special;
    if (req.method === 'GET' && req.path === '/api/v1/plans') return { body: s.plans };
    if (req.method === 'GET' && req.path === '/api/v1/billing/usage') return { body: s.usage };
    if (req.method === 'GET' && req.path === '/api/v1/forms') return { body: { data: s.forms } };
    if (req.method !== 'POST') return undefined;
    if (req.path === '/api/auth/subscription/upgrade') return { body: { url: CHECKOUT_URL, redirect: false } };
    if (req.path === '/api/auth/subscription/cancel') return { body: { url: `${PORTAL_URL}/cancel`, redirect: false } };
    if (req.path === '/api/auth/subscription/billing-portal') return { body: { url: PORTAL_URL, redirect: false } };
    if (req.path === '/api/auth/subscription/restore') {
      if (s.usage.subscription)
        s.usage = { ...s.usage, subscription: { ...s.usage.subscription, cancelAtPeriodEnd: false } };
      return { body: { id: 'sub_1', cancel_at_period_end: false } };
    }
    return undefined;
  });
  apis.push(api);
  return { ...api, state: s };
}

const open = (path: string, url: string, role: string, session: SessionData | null = signedIn('org1')) =>
  renderApp(path, { session, authBaseUrl: url, role });

const watchLeaving = () => vi.spyOn(leaveApp, 'assign').mockImplementation(() => {});

describe('price and limit formatting', () => {
  it('formats minor units per currency, and 0 as Free', () => {
    expect(formatPrice(0, 'usd')).toBe('Free');
    expect(formatPrice(1500, 'usd')).toBe('$15');
    expect(formatPrice(1999, 'usd')).toBe('$19.99');
    expect(formatPrice(15000, 'USD')).toBe('$150');
    expect(formatPrice(1500, 'eur')).toBe('€15');
    expect(formatPrice(1500, 'jpy')).toBe('¥1,500');
    expect(formatPrice(1000, 'xts')).toMatch(/^XTS\s10$/);
  });

  it('reads null limits as Unlimited and storage in MB or GB; computes the yearly saving', () => {
    expect(formatLimit(null)).toBe('Unlimited');
    expect(formatLimit(50_000)).toBe('50,000');
    expect(formatStorageMb(100)).toBe('100 MB');
    expect(formatStorageMb(10_240)).toBe('10 GB');
    expect(formatStorageMb(1536)).toBe('1.5 GB');
    expect(formatStorageMb(null)).toBe('Unlimited');
    expect(formatRetentionLimit(365)).toBe('Submissions kept 365 days');
    expect(formatRetentionLimit(1)).toBe('Submissions kept 1 day');
    expect(formatRetentionLimit(3650)).toBe('Submissions kept 3,650 days');
    expect(formatRetentionLimit(null)).toBe('Submissions kept as long as you want');
    const pro = DEFAULT_PLANS.plans.find((p) => p.id === 'pro');
    expect(pro && yearlySavingPercent(pro)).toBe(17);
  });
});

describe('/pricing', () => {
  it('shows every plan from /api/v1/plans with prices, limits and features, monthly or yearly', async () => {
    const api = await billingApi({});
    open('/pricing', api.url, 'owner', null);
    const pro = await screen.findByRole('listitem', { name: 'Pro' });
    const free = screen.getByRole('listitem', { name: 'Free' });
    const business = screen.getByRole('listitem', { name: 'Business' });
    expect(within(free).getAllByText('Free').length).toBeGreaterThan(0);
    expect(within(pro).getByText('$15')).toBeTruthy();
    expect(within(pro).getByText('/ month')).toBeTruthy();
    expect(within(pro).getByText('For a startup with real traffic.')).toBeTruthy();
    expect(within(pro).getByText('14-day free trial')).toBeTruthy();
    expect(
      within(within(pro).getByRole('list', { name: 'Pro limits' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '5,000 submissions a month',
      '5,000 notification emails a month',
      '50 forms',
      '10 team members',
      '10 GB file storage',
      'Submissions kept as long as you want',
    ]);
    expect(
      within(within(free).getByRole('list', { name: 'Free limits' })).getByText('Submissions kept 365 days'),
    ).toBeTruthy();
    expect(within(pro).getByRole('list', { name: 'Pro features' }).textContent).toContain('File uploads');
    expect(within(business).getByText('Unlimited forms')).toBeTruthy();
    expect(within(business).getByText('Unlimited team members')).toBeTruthy();
    expect(within(business).getByText('100 GB file storage')).toBeTruthy();
    expect(within(business).getByText('Priority support')).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Yearly'));
    expect(await within(pro).findByText('$150')).toBeTruthy();
    expect(within(pro).getByText('/ year')).toBeTruthy();
    expect(within(pro).getByText('save 17%')).toBeTruthy();
    expect(within(business).getByText('$750')).toBeTruthy();

    // Signed out: every call to action signs up first.
    expect(
      within(free)
        .getByRole('link', { name: /Start free/ })
        .getAttribute('href'),
    ).toBe('/sign-up');
    expect(
      within(pro)
        .getByRole('link', { name: /Start free trial/ })
        .getAttribute('href'),
    ).toBe('/sign-up');
    expect(
      within(business)
        .getByRole('link', { name: /Get Business/ })
        .getAttribute('href'),
    ).toBe('/sign-up');
  });

  it('sends a signed-in visitor to the billing screen for a paid plan', async () => {
    const api = await billingApi({});
    open('/pricing', api.url, 'owner');
    const pro = await screen.findByRole('listitem', { name: 'Pro' });
    expect(
      within(pro)
        .getByRole('link', { name: /Choose Pro/ })
        .getAttribute('href'),
    ).toBe('/dashboard/billing');
    const free = screen.getByRole('listitem', { name: 'Free' });
    expect(
      within(free)
        .getByRole('link', { name: /Go to dashboard/ })
        .getAttribute('href'),
    ).toBe('/dashboard');
  });

  it('with billing off, says so and sells nothing', async () => {
    const api = await billingApi({ plans: plansResponse(false) });
    open('/pricing', api.url, 'owner', null);
    expect(await screen.findByText(/Payments are not set up on this instance/)).toBeTruthy();
    const links = within(screen.getByRole('list', { name: 'Plans' }))
      .getAllByRole('link')
      .map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['Start free (Free plan)', '/sign-up'],
      ['Start free (Pro plan)', '/sign-up'],
      ['Start free (Business plan)', '/sign-up'],
    ]);
    expect(screen.queryByText('14-day free trial')).toBeNull();
  });
});

describe('/dashboard/billing', () => {
  it('an owner on the free plan sees usage, held and deferred work, and upgrades yearly through checkout', async () => {
    const api = await billingApi({
      usage: freeUsage({
        submissions: { used: 100, max: 100, held: 7 },
        emails: { used: 100, max: 100, deferred: 3 },
      }),
      forms: [aForm('contact', 'Contact <b>us</b>'), aForm('newsletter', 'Newsletter')],
    });
    const leaving = watchLeaving();
    open('/dashboard/billing', api.url, 'owner');
    const main = within(await screen.findByRole('main'));
    const plan = within(await main.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('Free')).toBeTruthy();
    expect(plan.getByText('None: this plan is free')).toBeTruthy();
    await main.findByRole('region', { name: 'Upgrade' });

    const usage = within(main.getByRole('region', { name: 'Usage this period' }));
    expect(usage.getByText(/1 November 2026 – 30 November 2026/)).toBeTruthy();
    expect(usage.getAllByTestId('usage-bar-fill').map((f) => f.style.width)).toEqual(['100%', '100%', '1.5%']); // submissions, emails, storage (1.5 of 100 MB);
    expect(usage.getByText(/7 submissions are held until you upgrade or the period ends/)).toBeTruthy();
    expect(usage.getByText(/3 notification emails are deferred/)).toBeTruthy();
    const held = await usage.findByRole('link', { name: 'Held submissions of Contact <b>us</b>' });
    expect(held.getAttribute('href')).toBe('/dashboard/forms/contact/submissions?held=true');
    expect(held.textContent).toBe('Contact <b>us</b>');

    const upgrade = within(main.getByRole('region', { name: 'Upgrade' }));
    expect(upgrade.getByText('Current plan')).toBeTruthy();
    const offered = within(upgrade.getByRole('list', { name: 'Plans' })).getAllByRole('listitem');
    expect(
      offered.map((li) => /Submissions kept ([\d,]+ days?|as long as you want)/.exec(li.textContent ?? '')?.[0]),
    ).toEqual([
      'Submissions kept 365 days',
      'Submissions kept as long as you want',
      'Submissions kept as long as you want',
    ]);
    expect(upgrade.getByText(/\$15 \/ month/)).toBeTruthy();
    fireEvent.click(upgrade.getByLabelText('Yearly'));
    expect(await upgrade.findByText(/\$150 \/ year/)).toBeTruthy();
    fireEvent.click(upgrade.getByRole('button', { name: 'Upgrade to Pro' }));

    await waitFor(() => expect(leaving).toHaveBeenCalledWith(CHECKOUT_URL));
    const call = api.requests.find((r) => r.path === '/api/auth/subscription/upgrade');
    expect(call?.body).toEqual({
      plan: 'pro',
      annual: true,
      referenceId: 'org1',
      customerType: 'organization',
      successUrl: `${window.location.origin}/dashboard/billing?checkout=success`,
      cancelUrl: `${window.location.origin}/dashboard/billing?checkout=cancel`,
      returnUrl: `${window.location.origin}/dashboard/billing`,
      disableRedirect: true,
    });
    // On its way to Stripe, nothing can be clicked twice.
    expect((upgrade.getByRole('button', { name: 'Upgrade to Business' }) as HTMLButtonElement).disabled).toBe(true);
    // Back with the browser's back button (the page restored from the back-forward cache): usable again.
    window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    await waitFor(() =>
      expect((upgrade.getByRole('button', { name: 'Upgrade to Business' }) as HTMLButtonElement).disabled).toBe(false),
    );
  });

  it('says when file storage is full that files are refused and submissions without them still accepted', async () => {
    const api = await billingApi({ usage: freeUsage({ storage: { usedMb: 100.01, maxMb: 100 } }) });
    open('/dashboard/billing', api.url, 'owner');
    const main = within(await screen.findByRole('main'));
    const usage = within(await main.findByRole('region', { name: 'Usage this period' }));
    const alert = await usage.findByRole('alert');
    expect(alert.textContent).toMatch(/File storage is full: forms refuse submissions with files/);
    expect(alert.textContent).toMatch(/Submissions without files are still accepted/);
  });

  it('shows no storage alert while there is room, nor without a limit', async () => {
    for (const storage of [
      { usedMb: 99.99, maxMb: 100 },
      { usedMb: 5_000, maxMb: null },
    ]) {
      const api = await billingApi({ usage: freeUsage({ storage }) });
      const { unmount } = open('/dashboard/billing', api.url, 'owner');
      const main = within(await screen.findByRole('main'));
      const usage = within(await main.findByRole('region', { name: 'Usage this period' }));
      await usage.findByText(/File storage/);
      expect(usage.queryByRole('alert')).toBeNull();
      unmount();
    }
  });

  it('a member sees the plan and usage, no action, and a note saying who can act', async () => {
    const usage = proUsage();
    const api = await billingApi({
      usage: { ...usage, submissions: { ...usage.submissions, held: 1 } },
      forms: Array.from({ length: 7 }, (_, i) => aForm(`f${i}`, `Form ${i}`)),
    });
    open('/dashboard/billing', api.url, 'member');
    const main = within(await screen.findByRole('main'));
    expect(await main.findByText(/Pro · \$15 \/ month/)).toBeTruthy();
    expect(main.getByText('Active')).toBeTruthy();
    expect(main.getByText('Renews on')).toBeTruthy();
    expect(main.getByText('1 December 2026')).toBeTruthy();
    expect(main.getByText(/Only owners and admins can change the plan/)).toBeTruthy();
    expect(main.getByText('1,200 / 5,000')).toBeTruthy();
    expect(main.queryByRole('button')).toBeNull();
    expect(main.queryByRole('region', { name: /Change plan|Upgrade/ })).toBeNull();
    // Held work is visible to every member; five forms by name, then the forms list.
    expect(main.getByText(/1 submission is held until you upgrade/)).toBeTruthy();
    expect(await main.findAllByRole('link', { name: /^Held submissions of / })).toHaveLength(5);
    expect(main.getByRole('link', { name: '2 other forms' }).getAttribute('href')).toBe('/dashboard/forms');
  });

  it('an admin with a cancelled subscription restores it; the portal opens for payment and invoices', async () => {
    const api = await billingApi({ usage: proUsage(proSubscription({ cancelAtPeriodEnd: true })) });
    const leaving = watchLeaving();
    open('/dashboard/billing', api.url, 'admin');
    const plan = within(await screen.findByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('Ends on')).toBeTruthy();
    expect(plan.getByText(/The subscription is cancelled and ends on 1 December 2026/)).toBeTruthy();
    expect(plan.queryByRole('button', { name: 'Cancel subscription' })).toBeNull();

    fireEvent.click(await plan.findByRole('button', { name: 'Restore subscription' }));
    expect(await screen.findByText(/Subscription restored/)).toBeTruthy();
    expect(api.requests).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/api/auth/subscription/restore',
        body: { referenceId: 'org1', customerType: 'organization' },
      }),
    );
    expect(await plan.findByText('Renews on')).toBeTruthy();
    expect(plan.queryByRole('button', { name: 'Restore subscription' })).toBeNull();

    fireEvent.click(plan.getByRole('button', { name: 'Manage payment and invoices' }));
    await waitFor(() => expect(leaving).toHaveBeenCalledWith(PORTAL_URL));
    expect(api.requests.find((r) => r.path === '/api/auth/subscription/billing-portal')?.body).toEqual({
      referenceId: 'org1',
      customerType: 'organization',
      returnUrl: `${window.location.origin}/dashboard/billing`,
      disableRedirect: true,
    });
  });

  it('an owner cancels through the portal and changes plan; the current plan and interval are not offered', async () => {
    const api = await billingApi({ usage: proUsage() });
    const leaving = watchLeaving();
    open('/dashboard/billing', api.url, 'owner');
    const change = within(await screen.findByRole('region', { name: 'Change plan' }));
    const rows = change.getAllByRole('listitem');
    expect(rows.map((r) => r.textContent?.includes('Current plan'))).toEqual([false, true, false]);
    expect(within(rows[0] as HTMLElement).getByText('Cancel the subscription to return to it')).toBeTruthy();
    expect(change.getByRole('button', { name: 'Upgrade to Business' })).toBeTruthy();
    fireEvent.click(change.getByLabelText('Yearly'));
    expect(await change.findByRole('button', { name: 'Switch to yearly billing' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Cancel subscription' }));
    await waitFor(() => expect(leaving).toHaveBeenCalledWith(`${PORTAL_URL}/cancel`));
    expect(api.requests.find((r) => r.path === '/api/auth/subscription/cancel')?.body).toEqual({
      referenceId: 'org1',
      customerType: 'organization',
      returnUrl: `${window.location.origin}/dashboard/billing`,
      disableRedirect: true,
    });
  });

  it('with billing off, says every organization is on the default plan and offers no purchase', async () => {
    const api = await billingApi({ plans: plansResponse(false) });
    open('/dashboard/billing', api.url, 'owner');
    expect(
      await screen.findByText(/Billing is off on this instance: every organization is on the Free plan/),
    ).toBeTruthy();
    const main = within(screen.getByRole('main'));
    expect(await main.findByText('Not needed on this instance')).toBeTruthy();
    expect(main.queryByRole('button')).toBeNull();
    expect(main.queryByRole('region', { name: /Change plan|Upgrade/ })).toBeNull();
  });

  it('back from checkout: a toast, the parameter dropped, and the plan shows once the webhook has landed', async () => {
    const api = await billingApi({});
    const { router } = open('/dashboard/billing?checkout=success', api.url, 'owner');
    expect(await screen.findByText('Thank you! Your payment went through.')).toBeTruthy();
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(await screen.findByText(/Confirming your payment with Stripe/)).toBeTruthy();
    // The first load and the refresh the return asks for have both been answered without a subscription: only the
    // screen asking again can see the one that arrives next.
    const usageCalls = () => api.requests.filter((r) => r.path === '/api/v1/billing/usage').length;
    await waitFor(() => expect(usageCalls()).toBeGreaterThanOrEqual(2));
    // Stripe's webhook reaches the billing service a moment later.
    api.state.usage = proUsage(proSubscription({ status: 'trialing', trialEnd: '2026-11-15T00:00:00.000Z' }));
    const plan = within(screen.getByRole('region', { name: 'Plan' }));
    expect(await plan.findByText('Trial until 15 November 2026')).toBeTruthy();
    expect(plan.getByText(/^Pro/)).toBeTruthy();
    await waitFor(() => expect(screen.queryByText(/Confirming your payment/)).toBeNull());
    const calls = usageCalls();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(usageCalls()).toBe(calls); // it stops asking once the subscription is there
  });

  it('back from a cancelled checkout: says nothing was charged', async () => {
    const api = await billingApi({});
    open('/dashboard/billing?checkout=cancel', api.url, 'owner');
    expect(await screen.findByText('Checkout cancelled: nothing was charged.')).toBeTruthy();
    expect(screen.queryByText(/Confirming your payment/)).toBeNull();
  });

  it('shows the API’s refusal as a toast, and never follows a link that is not http(s)', async () => {
    let answerUrl = 'javascript:alert(1)';
    const api = await billingApi({
      answer: (req) => {
        if (req.path === '/api/auth/subscription/upgrade' && (req.body as { plan: string }).plan === 'business')
          return { status: 400, body: { code: 'SUBSCRIPTION_PLAN_NOT_FOUND', message: 'Subscription plan not found' } };
        if (req.path === '/api/auth/subscription/upgrade') return { body: { url: answerUrl, redirect: false } };
        return undefined;
      },
    });
    const leaving = watchLeaving();
    open('/dashboard/billing', api.url, 'owner');
    fireEvent.click(await screen.findByRole('button', { name: 'Upgrade to Business' }));
    expect(await screen.findByText('Subscription plan not found')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Upgrade to Pro' }));
    expect(await screen.findByText(/unusable link/)).toBeTruthy();
    expect(leaving).not.toHaveBeenCalled();
    answerUrl = CHECKOUT_URL;
    await waitFor(() =>
      expect((screen.getByRole('button', { name: 'Upgrade to Pro' }) as HTMLButtonElement).disabled).toBe(false),
    );
  });
});
