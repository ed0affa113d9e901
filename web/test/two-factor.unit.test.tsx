import { TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError, describeError } from '../src/lib/api.ts';
import { organizationListKey, queriesToInvalidate } from '../src/lib/auth-invalidation.ts';
import { startApi } from './api-server.ts';
import { renderApp } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';
import {
  aWorld,
  backupCodesOf,
  PASSWORD,
  TOTP_CODE,
  TOTP_SECRET,
  type TwoFactorWorld,
  twoFactorApi,
} from './two-factor-api.ts';

allowSlowScreens();
const track = closeAfterEach();

/** The app at `path` over the two-factor stand-in (its session too: nothing is seeded). */
async function open(path: string, world: TwoFactorWorld) {
  const api = track(await startApi(twoFactorApi(world)));
  const view = renderApp(path, { authBaseUrl: api.url });
  const posted = (path: string) =>
    api.requests.filter((r) => r.method === 'POST' && r.path === `/api/auth${path}`).map((r) => r.body);
  const location = () => view.router.state.location.pathname + view.router.state.location.search;
  return { ...view, api, posted, location };
}

const type = (field: HTMLElement, value: string) => fireEvent.change(field, { target: { value } });

describe('signing in with two-factor', () => {
  it('asks for the code after the password, says when it is wrong, then goes where the sign-in was headed', async () => {
    const world = aWorld({ signedIn: false, twoFactorEnabled: true });
    const { posted, location } = await open('/login?redirect=%2Fdashboard%2Fprofile', world);
    type(await screen.findByLabelText('Email'), 'ada@example.com');
    type(screen.getByLabelText('Password'), PASSWORD);
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Two-factor authentication' })).toBeTruthy();
    expect(location()).toBe('/login/two-factor?redirect=%2Fdashboard%2Fprofile');
    const code = screen.getByLabelText('Authentication code');
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(code.getAttribute('inputmode')).toBe('numeric');

    type(code, '12ab');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeTruthy();
    type(code, '654321');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(/^That code is not right/)).toBeTruthy();

    type(code, TOTP_CODE);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Trust this device for 30 days' }));
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'My profile' })).toBeTruthy();
    expect(location()).toBe('/dashboard/profile');
    expect(posted('/two-factor/verify-totp')).toEqual([
      { code: '654321', trustDevice: false },
      { code: TOTP_CODE, trustDevice: true },
    ]);
  });

  it('takes a backup code instead (each works once) and lands on the dashboard', async () => {
    const world = aWorld({ signedIn: false, twoFactorEnabled: true });
    const { location } = await open('/login/two-factor', world);
    fireEvent.click(await screen.findByRole('button', { name: 'Use a backup code instead' }));
    expect(screen.queryByLabelText('Authentication code')).toBeNull();
    const code = screen.getByLabelText('Backup code');

    type(code, 'not-a-code');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('That backup code is not right, or it was already used.')).toBeTruthy();

    type(code, 'old3-abcde');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
    expect(location()).toBe('/dashboard/forms');
    expect(world.backupCodes).not.toContain('old3-abcde');
  });

  it.each([
    ['a spent challenge', 400, 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE', /^Too many wrong codes for this sign-in/],
    ['an expired challenge', 401, 'INVALID_TWO_FACTOR_COOKIE', /^This sign-in has expired/],
  ])('after %s, asks to sign in again with the password', async (_what, status, code, said) => {
    const world = aWorld({ signedIn: false, challengeRefusal: { status, code, message: 'refused' } });
    const { location } = await open('/login/two-factor?redirect=%2Fdashboard%2Fbilling', world);
    type(await screen.findByLabelText('Authentication code'), TOTP_CODE);
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(said)).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'sign in again' }));
    expect(await screen.findByRole('heading', { name: 'Sign in to Formgate' })).toBeTruthy();
    expect(location()).toBe('/login?redirect=%2Fdashboard%2Fbilling');
  });

  it('says when the account is locked for a while', async () => {
    const refusal = { status: 429, code: 'ACCOUNT_TEMPORARILY_LOCKED', message: 'Account locked' };
    await open('/login/two-factor', aWorld({ signedIn: false, challengeRefusal: refusal }));
    fireEvent.click(await screen.findByRole('button', { name: 'Use a backup code instead' }));
    type(screen.getByLabelText('Backup code'), 'old1-abcde');
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Too many failed attempts: try again in 15 minutes.')).toBeTruthy();
  });
});

/** Goes through the profile's set-up: password, then the QR code, key and backup codes, then a first code. */
async function setUpTwoFactor(panel: HTMLElement) {
  fireEvent.click(within(panel).getByRole('button', { name: 'Set up two-factor' }));
  type(within(panel).getByLabelText('Your password'), PASSWORD);
  fireEvent.click(within(panel).getByRole('button', { name: 'Continue' }));
  type(await within(panel).findByLabelText('Enter the 6-digit code from your app'), TOTP_CODE);
  fireEvent.click(within(panel).getByRole('button', { name: 'Turn on two-factor' }));
}

describe('two-factor on the profile', () => {
  it('sets it up: password, then QR code, key and backup codes, then a first code turns it on', async () => {
    const { posted } = await open('/dashboard/profile', aWorld());
    const panel = await screen.findByRole('region', { name: 'Two-factor authentication' });
    expect(within(panel).getByText('Off')).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: 'Set up two-factor' }));
    type(within(panel).getByLabelText('Your password'), PASSWORD);
    fireEvent.click(within(panel).getByRole('button', { name: 'Continue' }));

    const qr = await within(panel).findByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
    expect(within(panel).getByTestId('totp-secret').textContent).toBe(TOTP_SECRET);
    expect(within(panel).getByRole('button', { name: 'Copy the key' })).toBeTruthy();
    const codes = within(panel).getByRole('list', { name: 'Backup codes' });
    expect(
      within(codes)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(backupCodesOf('new'));
    expect(within(panel).getByText(/Each works once; keep them somewhere safe/)).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Copy backup codes' })).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Download as text' })).toBeTruthy();

    type(within(panel).getByLabelText('Enter the 6-digit code from your app'), TOTP_CODE);
    fireEvent.click(within(panel).getByRole('button', { name: 'Turn on two-factor' }));
    expect(await screen.findByText('Two-factor authentication is on')).toBeTruthy();
    await waitFor(() => expect(within(panel).getByText('On')).toBeTruthy());
    expect(within(panel).queryByRole('list', { name: 'Backup codes' })).toBeNull();
    expect(posted('/two-factor/enable')).toEqual([{ password: PASSWORD }]);
    expect(posted('/two-factor/verify-totp')).toEqual([{ code: TOTP_CODE }]);
  });

  it('shows new backup codes once, and turns two-factor off, each after the password', async () => {
    const { posted } = await open('/dashboard/profile', aWorld({ twoFactorEnabled: true }));
    const panel = await screen.findByRole('region', { name: 'Two-factor authentication' });
    expect(within(panel).getByText('On')).toBeTruthy();

    fireEvent.click(within(panel).getByRole('button', { name: 'Show new backup codes' }));
    const renew = await screen.findByRole('alertdialog', { name: 'Make new backup codes?' });
    const show = within(renew).getByRole('button', { name: 'Show new backup codes' }) as HTMLButtonElement;
    expect(show.disabled).toBe(true);
    type(within(renew).getByLabelText('Your password'), PASSWORD);
    fireEvent.click(show);
    const codes = await within(panel).findByRole('list', { name: 'Backup codes' });
    expect(
      within(codes)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(backupCodesOf('fresh'));
    fireEvent.click(within(panel).getByRole('button', { name: 'I have saved them' }));
    expect(within(panel).queryByRole('list', { name: 'Backup codes' })).toBeNull();

    fireEvent.click(within(panel).getByRole('button', { name: 'Turn off two-factor' }));
    const off = await screen.findByRole('alertdialog', { name: 'Turn off two-factor authentication?' });
    type(within(off).getByLabelText('Your password'), PASSWORD);
    fireEvent.click(within(off).getByRole('button', { name: 'Turn off two-factor' }));
    expect(await screen.findByText('Two-factor authentication is off')).toBeTruthy();
    await waitFor(() => expect(within(panel).getByText('Off')).toBeTruthy());
    expect(posted('/two-factor/generate-backup-codes')).toEqual([{ password: PASSWORD }]);
    expect(posted('/two-factor/disable')).toEqual([{ password: PASSWORD }]);
  });
});

describe('requiring two-factor in an organization', () => {
  const requirement = async (world: TwoFactorWorld) => {
    const view = await open('/dashboard/organization', world);
    const security = await screen.findByRole('region', { name: 'Security' });
    const box = within(security).getByRole('checkbox', {
      name: 'Members must use two-factor authentication',
    }) as HTMLInputElement;
    return { ...view, security, box };
  };

  it('is saved by an owner who has two-factor', async () => {
    const world = aWorld({ twoFactorEnabled: true });
    const { box, security, posted } = await requirement(world);
    expect(within(security).getByText(/can only reach their profile until they set it up/)).toBeTruthy();
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    expect(await screen.findByText('Members must now use two-factor authentication')).toBeTruthy();
    await waitFor(() => expect(box.checked).toBe(true));
    expect(posted('/organization/update')).toEqual([{ organizationId: 'org1', data: { requireTwoFactor: true } }]);
    expect(world.requireTwoFactor).toBe(true);
  });

  it("shows the server's refusal to someone without two-factor", async () => {
    const { box, security } = await requirement(aWorld());
    fireEvent.click(box);
    expect(
      await within(security).findByText(
        'Set up two-factor authentication on your profile before you require it of members',
      ),
    ).toBeTruthy();
    expect(box.checked).toBe(false);
  });
});

describe('the dashboard of a member without two-factor where it is required', () => {
  it('shows only the way to the profile, and opens once two-factor is on', async () => {
    const { router } = await open('/dashboard/forms', aWorld({ requireTwoFactor: true, role: 'member' }));
    expect(await screen.findByRole('heading', { name: 'Acme requires two-factor authentication' })).toBeTruthy();
    expect(screen.getByText(`${TWO_FACTOR_REQUIRED_MESSAGE}.`)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Forms' })).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Dashboard' })).toBeTruthy();

    fireEvent.click(screen.getByRole('link', { name: 'Set up two-factor on your profile' }));
    const panel = await screen.findByRole('region', { name: 'Two-factor authentication' });
    expect(screen.queryByRole('heading', { name: /requires two-factor/ })).toBeNull();
    await setUpTwoFactor(panel);
    await waitFor(() => expect(within(panel).getByText('On')).toBeTruthy());

    await router.navigate('/dashboard/forms');
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
  });

  it('appears when the API refuses for want of two-factor, even if the organization was read before', async () => {
    const { queryClient } = await open('/dashboard/forms', aWorld({ requireTwoFactor: true, role: 'member' }));
    queryClient.setQueryData(organizationListKey, [
      { id: 'org1', name: 'Acme', slug: 'acme', requireTwoFactor: false },
    ]);
    expect(await screen.findByRole('heading', { name: 'Acme requires two-factor authentication' })).toBeTruthy();
  });

  it('a refusal reads as what to do', () => {
    const refusal = new ApiError({
      status: 403,
      statusText: 'Forbidden',
      body: { error: { code: 'TWO_FACTOR_REQUIRED' } },
    });
    expect(describeError(refusal)).toBe(TWO_FACTOR_REQUIRED_MESSAGE);
  });
});

describe('query refresh after two-factor calls', () => {
  it('asks for the session again when a code is verified or two-factor is turned off, not when set-up starts', () => {
    for (const path of ['/two-factor/verify-totp', '/two-factor/verify-backup-code', '/two-factor/disable'])
      expect(queriesToInvalidate(path)).toEqual([['session']]);
    for (const path of ['/two-factor/enable', '/two-factor/generate-backup-codes'])
      expect(queriesToInvalidate(path)).toEqual([]);
  });
});
