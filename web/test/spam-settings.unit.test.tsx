import { DEFAULT_FORM_SETTINGS, DEFAULT_SPAM_SETTINGS, type SpamSettingsPatchView } from '@formgate/contracts';
import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SpamSettingsRead, spamRequestOf, spamValuesOf } from '../src/features/spam/spam-settings.ts';
import { aForm, startFormsApi } from './forms-api.ts';
import { renderApp, signedIn } from './render-app.tsx';

// Whole screens over real HTTP on a shared 2-core machine: more than the default 5 s when it is busy.
vi.setConfig({ testTimeout: 30_000 });
configure({ asyncUtilTimeout: 15_000 });

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A form whose own spam settings are a time-trap and Turnstile (secret stored), the rest inherited. */
const formSpam: SpamSettingsPatchView = {
  timeTrapSeconds: 5,
  captcha: { provider: 'turnstile', secret: null, secretSet: true, minScore: null, onFailure: 'reject' },
};

const orgSpam = { rateLimit: { perIpPerMinute: 10, perFormPerMinute: 100, perOrgPerMinute: 0 }, origins: 'flag' };

async function openSpamPanel(
  role: string,
  options: { spam?: SpamSettingsPatchView | null; refuse?: Parameters<typeof startFormsApi>[0]['refuse'] } = {},
) {
  const server = await startFormsApi({
    forms: [
      aForm({
        settings: {
          ...DEFAULT_FORM_SETTINGS,
          allowedOrigins: ['https://www.example.com'],
          spam: options.spam === undefined ? formSpam : options.spam,
        },
      }),
    ],
    orgSettings: { submission_notification_email: null, email_management: false, spam: orgSpam },
    refuse: options.refuse,
  });
  servers.push(server);
  renderApp('/dashboard/forms/contact/settings', { session: signedIn('org1'), apiBaseUrl: server.url, role });
  await screen.findByRole('region', { name: 'Spam protection' });
  // Found again at each use: a save refetches the form, and the screen may render anew.
  const panel = {
    get el() {
      return screen.getByRole('region', { name: 'Spam protection' });
    },
  };
  const group = (name: string) => within(within(panel.el).getByRole('group', { name }));
  // The organization's defaults have arrived once the inherited rate limit shows them.
  await waitFor(() =>
    expect((group('Rate limits').getByLabelText('Per IP address') as HTMLInputElement).value).toBe('10'),
  );
  return { server, panel, group };
}

const patches = (server: Awaited<ReturnType<typeof startFormsApi>>) =>
  server.requests.filter((r) => r.method === 'PATCH');
const input = (el: HTMLElement) => el as HTMLInputElement;

describe('spam settings model', () => {
  it('reads the keys a form sets as its own and the others as inherited, and sends back only its own', () => {
    const values = spamValuesOf(formSpam as SpamSettingsRead, { ...DEFAULT_SPAM_SETTINGS, shadow: true });
    expect(values.timeTrapSeconds).toEqual({ inherit: false, value: '5' });
    expect(values.shadow).toEqual({ inherit: true, value: true });
    expect(values.captcha).toMatchObject({ inherit: false, provider: 'turnstile', secretSet: true, secret: '' });
    // Unchanged: the same overrides, the stored secret kept by leaving `secret` out.
    expect(spamRequestOf(values)).toEqual({
      timeTrapSeconds: 5,
      captcha: { provider: 'turnstile', minScore: null, onFailure: 'reject' },
    });
    expect(spamRequestOf(spamValuesOf(null, DEFAULT_SPAM_SETTINGS))).toBeNull();
  });

  it('an inherited captcha’s secret is not the form’s own', () => {
    const inherited = {
      ...DEFAULT_SPAM_SETTINGS,
      captcha: { provider: 'hcaptcha', secret: null, secretSet: true, minScore: null, onFailure: 'flag' },
    } as typeof DEFAULT_SPAM_SETTINGS;
    expect(spamValuesOf(null, inherited).captcha).toMatchObject({
      inherit: true,
      provider: 'hcaptcha',
      secretSet: false,
    });
  });
});

describe('form settings: spam protection', () => {
  it('shows the form’s own settings and the organization’s defaults for the rest', async () => {
    const { group } = await openSpamPanel('admin');
    const timeTrap = group('Time-trap');
    expect(input(timeTrap.getByLabelText('Use the organization’s default')).checked).toBe(false);
    expect(input(timeTrap.getByLabelText(/^Minimum seconds/)).value).toBe('5');
    const limits = group('Rate limits');
    expect(input(limits.getByLabelText('Use the organization’s default')).checked).toBe(true);
    expect(limits.getByLabelText('Per IP address').matches(':disabled')).toBe(true);
    expect(input(limits.getByLabelText('Per form')).value).toBe('100');
    expect(input(group('Allowed origins check').getByRole('combobox')).value).toBe('flag');
    expect(group('Allowed origins check').getByRole('list', { name: 'Allowed origins in use' }).textContent).toBe(
      'https://www.example.com',
    );
    const captcha = group('Captcha');
    expect(input(captcha.getByLabelText('Provider')).value).toBe('turnstile');
    // Write-only: never shown, only that one is set.
    const secret = input(captcha.getByLabelText('Secret key'));
    expect(secret.value).toBe('');
    expect(secret.type).toBe('password');
    expect(secret.placeholder).toBe('Set (type to replace)');
    expect(input(captcha.getByLabelText('A missing or failed captcha')).value).toBe('reject');
  });

  it('sends only settings.spam: the form’s overrides, the unchanged secret left out, inherited keys absent', async () => {
    const { server, panel, group } = await openSpamPanel('owner');
    fireEvent.click(group('Time-trap').getByLabelText('Use the organization’s default'));
    const rules = group('Content rules');
    fireEvent.click(rules.getByLabelText('Use the organization’s default'));
    fireEvent.change(rules.getByLabelText('Blocked words'), { target: { value: 'casino\n\n  cheap pills \n' } });
    fireEvent.change(rules.getByLabelText('Blocked email domains'), { target: { value: 'Spam.Example' } });
    fireEvent.change(rules.getByLabelText('Most links allowed'), { target: { value: '2' } });
    fireEvent.click(rules.getByLabelText('Score addresses at disposable email providers'));
    const shadow = group('Shadow mode');
    fireEvent.click(shadow.getByLabelText('Use the organization’s default'));
    fireEvent.click(shadow.getByRole('switch', { name: 'Only record what the layers would have done' }));
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));

    await waitFor(() => expect(patches(server)).toHaveLength(1));
    expect(patches(server)[0]?.body).toEqual({
      settings: {
        spam: {
          captcha: { provider: 'turnstile', minScore: null, onFailure: 'reject' },
          rules: {
            blockedWords: ['casino', 'cheap pills'],
            blockedDomains: ['spam.example'],
            maxLinks: 2,
            disposableEmails: true,
            threshold: 3,
          },
          shadow: true,
        },
      },
    });
    expect(await screen.findByText('Spam protection saved')).toBeTruthy();
    // The secret stays stored (and unseen) after the save.
    expect(input(group('Captcha').getByLabelText('Secret key')).placeholder).toBe('Set (type to replace)');
  });

  it('sends a new provider with its secret and reCAPTCHA v3’s score; every key inherited again sends null', async () => {
    const { server, panel, group } = await openSpamPanel('owner');
    const captcha = group('Captcha');
    fireEvent.change(captcha.getByLabelText('Provider'), { target: { value: 'recaptcha' } });
    fireEvent.change(await captcha.findByLabelText('Secret key'), { target: { value: '  6Lc-secret ' } });
    fireEvent.change(captcha.getByLabelText('Minimum score (reCAPTCHA v3)'), { target: { value: '0.7' } });
    fireEvent.change(captcha.getByLabelText('A missing or failed captcha'), { target: { value: 'flag' } });
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));
    await waitFor(() => expect(patches(server)).toHaveLength(1));
    expect(patches(server)[0]?.body).toEqual({
      settings: {
        spam: {
          timeTrapSeconds: 5,
          captcha: { provider: 'recaptcha', secret: '6Lc-secret', minScore: 0.7, onFailure: 'flag' },
        },
      },
    });

    // Saved and read back: the new secret is stored, never shown.
    await waitFor(() => expect(within(panel.el).getByRole('button', { name: 'Save spam protection' })).toBeTruthy());
    await waitFor(() => expect(input(group('Captcha').getByLabelText('Secret key')).value).toBe(''));
    fireEvent.click(group('Time-trap').getByLabelText('Use the organization’s default'));
    fireEvent.click(group('Captcha').getByLabelText('Use the organization’s default'));
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));
    await waitFor(() => expect(patches(server)).toHaveLength(2));
    expect(patches(server)[1]?.body).toEqual({ settings: { spam: null } });
  });

  it('explains each invalid value and sends nothing', async () => {
    const { server, panel, group } = await openSpamPanel('owner');
    fireEvent.change(group('Time-trap').getByLabelText(/^Minimum seconds/), { target: { value: '5000' } });
    const captcha = group('Captcha');
    // Another provider needs its own secret: the stored one was Turnstile's.
    fireEvent.change(captcha.getByLabelText('Provider'), { target: { value: 'hcaptcha' } });
    const limits = group('Rate limits');
    fireEvent.click(limits.getByLabelText('Use the organization’s default'));
    fireEvent.change(limits.getByLabelText('Per IP address'), { target: { value: '-1' } });
    const rules = group('Content rules');
    fireEvent.click(rules.getByLabelText('Use the organization’s default'));
    fireEvent.change(rules.getByLabelText('Spam score threshold'), { target: { value: '0' } });
    fireEvent.change(rules.getByLabelText('Blocked words'), { target: { value: 'x'.repeat(101) } });
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));

    expect(await within(panel.el).findByText('A whole number from 0 to 3,600')).toBeTruthy();
    expect(within(panel.el).getByText('Enter the secret key of your hCaptcha account')).toBeTruthy();
    expect(within(panel.el).getByText('A whole number from 0 to 1,000,000')).toBeTruthy();
    expect(within(panel.el).getByText('A whole number from 1 to 100')).toBeTruthy();
    expect(within(panel.el).getByText('At most 500 words or phrases of at most 100 characters each')).toBeTruthy();
    expect(
      group('Time-trap')
        .getByLabelText(/^Minimum seconds/)
        .getAttribute('aria-invalid'),
    ).toBe('true');
    expect(patches(server)).toHaveLength(0);
  });

  it('a minimum score outside 0–1 is refused', async () => {
    const { server, panel, group } = await openSpamPanel('owner', { spam: null });
    const captcha = group('Captcha');
    fireEvent.click(captcha.getByLabelText('Use the organization’s default'));
    fireEvent.change(captcha.getByLabelText('Provider'), { target: { value: 'recaptcha' } });
    fireEvent.change(await captcha.findByLabelText('Secret key'), { target: { value: 's' } });
    fireEvent.change(captcha.getByLabelText('Minimum score (reCAPTCHA v3)'), { target: { value: '1.5' } });
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));
    expect(await within(panel.el).findByText('A score from 0 to 1 (e.g. 0.5), or empty for reCAPTCHA v2')).toBeTruthy();
    expect(patches(server)).toHaveLength(0);
  });

  it('shows the server’s refusal as a toast', async () => {
    const { server, panel, group } = await openSpamPanel('owner', {
      refuse: (method, path) =>
        method === 'PATCH' && path === '/api/v1/forms/f1'
          ? { status: 400, code: 'VALIDATION_FAILED', message: 'settings.spam.timeTrapSeconds: too big' }
          : undefined,
    });
    fireEvent.change(group('Time-trap').getByLabelText(/^Minimum seconds/), { target: { value: '7' } });
    fireEvent.click(within(panel.el).getByRole('button', { name: 'Save spam protection' }));
    expect(await screen.findByText('settings.spam.timeTrapSeconds: too big')).toBeTruthy();
    expect(patches(server)).toHaveLength(1);
    // Nothing was saved: what was typed stays, to correct it.
    expect(input(group('Time-trap').getByLabelText(/^Minimum seconds/)).value).toBe('7');
  });

  it('is read-only for a member', async () => {
    const { panel, group } = await openSpamPanel('member');
    expect(
      group('Time-trap')
        .getByLabelText(/^Minimum seconds/)
        .matches(':disabled'),
    ).toBe(true);
    expect(group('Time-trap').getByLabelText('Use the organization’s default').matches(':disabled')).toBe(true);
    expect(group('Captcha').getByLabelText('Provider').matches(':disabled')).toBe(true);
    expect(group('Captcha').getByLabelText('Secret key').matches(':disabled')).toBe(true);
    expect(within(panel.el).getByRole('button', { name: 'Save spam protection' }).matches(':disabled')).toBe(true);
  });
});
