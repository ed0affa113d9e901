import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { organizationKeys } from '../src/features/organization/organization.queries.ts';
import { escapeHtml, jsString, spamSnippet } from '../src/features/spam/spam-snippets.ts';
import { activeMemberKey, activeOrganizationKey } from '../src/lib/auth-invalidation.ts';
import { type ApiHandler, startApi } from './api-server.ts';
import { aForm, aSubmission, startFormsApi } from './forms-api.ts';
import { renderApp, signedIn } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach, openAs } from './screen-test.ts';

allowSlowScreens();

const closing = closeAfterEach();
const api = async (init: Parameters<typeof startFormsApi>[0]) => closing(await startFormsApi(init));

describe('submission detail: spam reasons and release', () => {
  const flagged = aSubmission('s1', {
    spam: true,
    spamReasons: [
      { layer: 'time-trap', rule: 'too-fast', detail: 'sent 1 s after the page was shown (minimum 5 s)' },
      { layer: 'rules', rule: 'blocked-word', detail: 'blocked word "<b>casino</b>"' },
      {
        layer: 'origin',
        rule: 'origin-not-allowed',
        detail: 'origin https://evil.example is not allowed',
        shadow: true,
      },
    ],
  });

  it('lists each reason with its layer, detail, rule and a shadow badge, as text', async () => {
    const server = await api({ forms: [aForm()], submissions: [flagged] });
    const { container } = openAs('/dashboard/forms/contact/submissions/s1', server.url);
    const list = await screen.findByRole('list', { name: 'Spam checks' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      'Time-traptoo-fastsent 1 s after the page was shown (minimum 5 s)',
      'Content rulesblocked-wordblocked word "<b>casino</b>"',
      'Allowed originsshadoworigin-not-allowedorigin https://evil.example is not allowed',
    ]);
    expect(within(items[2] as HTMLElement).getByTitle('Shadow mode: recorded only, it did not count')).toBeTruthy();
    expect(within(items[0] as HTMLElement).queryByText('shadow')).toBeNull();
    expect(container.querySelector('article b')).toBeNull();
  });

  it('"Not spam" says the submission will be notified and counted, then releases it', async () => {
    const server = await api({ forms: [aForm()], submissions: [flagged] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    fireEvent.click(await screen.findByRole('button', { name: 'Not spam' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Release this submission as not spam?' });
    expect(dialog.textContent).toMatch(/notified \(emails and webhooks.*\) and counted in the plan’s usage, once/);
    expect(server.requests.some((r) => r.method === 'PATCH')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Not spam' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({ spam: false });
    expect(await screen.findByText('Marked as not spam: it is notified and counted now')).toBeTruthy();
    expect(await screen.findByText('Marked as not spam since these were recorded.')).toBeTruthy();
  });

  it('a member reads the reasons but cannot release', async () => {
    const server = await api({ forms: [aForm()], submissions: [flagged] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url, 'member');
    expect(await screen.findByRole('list', { name: 'Spam checks' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Not spam' })).toBeNull();
  });

  it('a submission without reasons shows no spam checks', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s2')] });
    openAs('/dashboard/forms/contact/submissions/s2', server.url);
    await screen.findByRole('article');
    expect(screen.queryByRole('heading', { name: 'Spam checks' })).toBeNull();
  });
});

describe('form overview: blocked requests', () => {
  it('shows the blocked count of 30 days and the blocked series per day', async () => {
    const server = await api({
      forms: [aForm({ submissionCount: 9, spamCount: 2, blockedCount: 41 })],
      stats: [
        { day: '2026-07-30', total: 4, spam: 1, blocked: 30 },
        { day: '2026-07-10', total: 5, spam: 1, blocked: 11 },
        // An older server without `blocked`: zero.
        { day: '2026-07-11', total: 1, spam: 0 },
      ],
    });
    openAs('/dashboard/forms/contact/overview', server.url);
    const table = await screen.findByRole('table', { name: /Submissions per day/ });
    expect(within(table).getByRole('columnheader', { name: 'Blocked' })).toBeTruthy();
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[9]?.textContent).toBe('2026-07-105111');
    expect(rows[10]?.textContent).toBe('2026-07-11100');
    expect(rows[29]?.textContent).toBe('2026-07-304130');
    expect(screen.getByText('Blocked, last 30 days').nextElementSibling?.textContent).toBe('41');
    const bar = screen.getByTestId('submissions-chart').querySelector('g[data-day="2026-07-30"]');
    expect(bar?.querySelector('title')?.textContent).toMatch(/30 blocked$/);
    // The tallest bar is the day with the most submissions and blocks together.
    const heights = [...(bar?.querySelectorAll('rect') ?? [])].map((r) => Number(r.getAttribute('height')));
    expect(heights.reduce((a, b) => a + b, 0)).toBeCloseTo(156, 0);
  });
});

describe('examples: spam protection snippet', () => {
  it('escapes what it puts in attributes and scripts', () => {
    expect(escapeHtml(`"><script>alert('x')</script>&`)).toBe(
      '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;',
    );
    expect(jsString('</script><!--')).toBe('"\\u003c/script\\u003e\\u003c!--"');
    const code = spamSnippet({
      endpoint: 'https://forms.example/f/k"3y',
      timeTrap: true,
      captcha: 'turnstile',
      siteKey: '"><img src=x onerror=alert(1)>',
      recaptchaV3: false,
    });
    expect(code).toContain('<form id="formgate-form" action="https://forms.example/f/k&quot;3y" method="POST">');
    expect(code).toContain('data-sitekey="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(code).toContain('fetch("https://forms.example/f/k\\"3y/timestamp")');
    expect(code).not.toContain('<img');
  });

  it('builds the time-trap field and the chosen widget for the form, copyable', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/example', server.url);
    const section = await screen.findByRole('region', { name: 'Spam protection on your page' });
    const inside = within(section);
    const code = () => inside.getByTestId('spam-snippet').textContent ?? '';
    const endpoint = `${window.location.origin}/f/k3y`;
    expect(code()).not.toContain('altcha');
    fireEvent.click(inside.getByLabelText('Time-trap timestamp field'));
    expect(code()).toContain('<input type="hidden" name="_formgate_ts" id="formgate-timestamp">');
    expect(code()).toContain(`fetch("${endpoint}/timestamp")`);

    fireEvent.change(inside.getByLabelText('Captcha widget'), { target: { value: 'altcha' } });
    expect(code()).toContain(`<altcha-widget challenge="${endpoint}/altcha" name="altcha"></altcha-widget>`);
    expect(code()).not.toContain('challengeurl');
    expect(code()).toContain('src="https://cdn.jsdelivr.net/npm/altcha@3/dist/main/altcha.min.js"');
    expect(inside.queryByLabelText('Site key')).toBeNull();

    fireEvent.change(inside.getByLabelText('Captcha widget'), { target: { value: 'hcaptcha' } });
    fireEvent.change(inside.getByLabelText('Site key'), { target: { value: '10000000-ffff-ffff-ffff-000000000001' } });
    expect(code()).toContain('<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div>');
    expect(code()).toContain('https://js.hcaptcha.com/1/api.js');

    fireEvent.change(inside.getByLabelText('Captcha widget'), { target: { value: 'recaptcha' } });
    fireEvent.click(inside.getByLabelText('reCAPTCHA v3 (invisible, scored)'));
    expect(code()).toContain('api.js?render=10000000-ffff-ffff-ffff-000000000001');
    expect(code()).toContain('name="g-recaptcha-response"');

    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    fireEvent.click(inside.getByRole('button', { name: 'Copy the spam protection example' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(code()));
  });

  it('starts from the form’s own captcha and time-trap', async () => {
    const server = await api({
      forms: [
        aForm({
          settings: {
            ...aForm().settings,
            spam: {
              timeTrapSeconds: 3,
              captcha: { provider: 'altcha', secret: null, secretSet: false, minScore: null, onFailure: 'flag' },
            },
          },
        }),
      ],
    });
    openAs('/dashboard/forms/contact/example', server.url);
    const section = await screen.findByRole('region', { name: 'Spam protection on your page' });
    const code = within(section).getByTestId('spam-snippet').textContent ?? '';
    expect(code).toContain('<altcha-widget');
    expect(code).toContain('name="_formgate_ts"');
  });
});

describe('organization: spam defaults', () => {
  const at = '2026-11-01T10:00:00.000Z';
  const organization = {
    id: 'org1',
    name: 'Acme',
    slug: 'acme',
    createdAt: at,
    members: [
      {
        id: 'm-u1',
        organizationId: 'org1',
        userId: 'u1',
        role: 'owner',
        createdAt: at,
        user: { id: 'u1', name: 'ada', email: 'ada@example.com', image: null },
      },
    ],
    invitations: [],
    teams: [],
  };
  const stored = {
    submission_notification_email: null,
    email_management: false,
    spam: {
      shadow: true,
      rules: { blockedWords: ['casino'], blockedDomains: [], maxLinks: 3, disposableEmails: true, threshold: 2 },
    },
  };

  async function renderDefaults(role: string, handle: ApiHandler = () => undefined) {
    const api = await startApi(handle);
    closing(api);
    const view = renderApp('/dashboard/organization', { session: signedIn('org1'), authBaseUrl: api.url });
    view.queryClient.setQueryData(activeOrganizationKey, organization);
    view.queryClient.setQueryData(activeMemberKey, { ...organization.members[0], role });
    view.queryClient.setQueryData(organizationKeys.apiKeys, []);
    view.queryClient.setQueryData(organizationKeys.settings, stored);
    const panel = await screen.findByRole('region', { name: 'Spam protection defaults' });
    const group = (name: string) => within(within(panel).getByRole('group', { name }));
    return { api, panel, group };
  }

  it('shows the organization’s defaults over the built-in ones, and saves its whole set of defaults', async () => {
    const { api, panel, group } = await renderDefaults('admin', (req) =>
      req.method === 'PATCH' && req.path === '/api/v1/orgs/settings'
        ? { body: { ...stored, spam: { ...stored.spam, timeTrapSeconds: 4 } } }
        : undefined,
    );
    const rules = group('Content rules');
    expect((rules.getByLabelText('Use the built-in default') as HTMLInputElement).checked).toBe(false);
    expect((rules.getByLabelText('Blocked words') as HTMLTextAreaElement).value).toBe('casino');
    expect((rules.getByLabelText('Most links allowed') as HTMLInputElement).value).toBe('3');
    const timeTrap = group('Time-trap');
    expect((timeTrap.getByLabelText('Use the built-in default') as HTMLInputElement).checked).toBe(true);
    expect((timeTrap.getByLabelText(/^Minimum seconds/) as HTMLInputElement).value).toBe('0');
    expect(within(panel).getByText('Applies to the forms that list allowed origins in their settings.')).toBeTruthy();

    fireEvent.click(timeTrap.getByLabelText('Use the built-in default'));
    fireEvent.change(timeTrap.getByLabelText(/^Minimum seconds/), { target: { value: '4' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Save spam defaults' }));
    await waitFor(() => expect(api.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(api.requests.find((r) => r.method === 'PATCH')).toMatchObject({
      path: '/api/v1/orgs/settings',
      body: { spam: { timeTrapSeconds: 4, rules: stored.spam.rules, shadow: true } },
    });
    expect(await screen.findByText('Spam defaults saved')).toBeTruthy();
  });

  it('refuses an invalid value without a request, and shows the server’s refusal', async () => {
    const { api, panel, group } = await renderDefaults('owner', (req) =>
      req.method === 'PATCH'
        ? { status: 403, body: { error: { code: 'FORBIDDEN', message: 'Only owners and admins may change this' } } }
        : undefined,
    );
    const limits = group('Rate limits');
    fireEvent.click(limits.getByLabelText('Use the built-in default'));
    fireEvent.change(limits.getByLabelText('Per organization'), { target: { value: '1.5' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Save spam defaults' }));
    expect(await within(panel).findByText('A whole number from 0 to 10,000,000')).toBeTruthy();
    expect(api.requests.some((r) => r.method === 'PATCH')).toBe(false);

    fireEvent.change(limits.getByLabelText('Per organization'), { target: { value: '600' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Save spam defaults' }));
    expect(await screen.findByText('Only owners and admins may change this')).toBeTruthy();
    expect(api.requests.find((r) => r.method === 'PATCH')?.body).toMatchObject({
      spam: { rateLimit: { perIpPerMinute: 0, perFormPerMinute: 0, perOrgPerMinute: 600 } },
    });
  });

  it('a member reads the defaults and cannot change them', async () => {
    const { panel, group } = await renderDefaults('member');
    expect(within(panel).getByText('Only owners and admins of the organization can change its defaults.')).toBeTruthy();
    expect(group('Content rules').getByLabelText('Blocked words').matches(':disabled')).toBe(true);
    expect(group('Shadow mode').getByLabelText('Use the built-in default').matches(':disabled')).toBe(true);
    expect(within(panel).getByRole('button', { name: 'Save spam defaults' }).matches(':disabled')).toBe(true);
  });
});
