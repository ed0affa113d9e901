import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../src/components/panel.tsx';
import { queriesToInvalidate, sessionKey } from '../src/lib/auth-invalidation.ts';
import { startApi } from './api-server.ts';
import { aPasskey, aPasskeyWorld, type PasskeyWorld, passkeysApi, stubWebAuthn } from './passkeys-api.ts';
import { renderApp } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';
import { PASSWORD } from './two-factor-api.ts';

allowSlowScreens();
const track = closeAfterEach();
afterEach(() => vi.restoreAllMocks());

const MAC_CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';

/** The app at `path` over the passkey stand-in, with a browser whose authenticator holds `device`'s credential. */
async function open(path: string, world: PasskeyWorld, device?: { credentialId: string; refuse?: string }) {
  const api = track(await startApi(passkeysApi(world)));
  const webAuthn = device ? track(stubWebAuthn(device)) : undefined;
  const view = renderApp(path, { authBaseUrl: api.url });
  const posted = (path: string) =>
    api.requests.filter((r) => r.method === 'POST' && r.path === `/api/auth${path}`).map((r) => r.body);
  const location = () => view.router.state.location.pathname + view.router.state.location.search;
  return { ...view, api, webAuthn, posted, location };
}

const type = (field: HTMLElement, value: string) => fireEvent.change(field, { target: { value } });
const panel = () => screen.findByRole('region', { name: 'Passkeys' });
const names = (list: HTMLElement) =>
  within(list)
    .getAllByRole('listitem')
    .map((li) => li.querySelector('.font-medium')?.textContent);

describe('passkeys on the profile', () => {
  it('lists them with when each was added and where it is kept; adds one under the name given', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(MAC_CHROME);
    const world = aPasskeyWorld({ passkeys: [aPasskey('pk0', 'Security key')] });
    const { api, posted, webAuthn } = await open('/dashboard/profile', world, { credentialId: 'cred-new' });
    const passkeys = await panel();
    const list = await within(passkeys).findByRole('list', { name: 'Your passkeys' });
    expect(within(list).getByText('Security key')).toBeTruthy();
    expect(
      within(list).getByText(`Added ${formatDateTime('2026-11-02T09:30:00.000Z')} · kept on one device`),
    ).toBeTruthy();

    fireEvent.click(within(passkeys).getByRole('button', { name: 'Add a passkey' }));
    const form = within(passkeys).getByRole('form', { name: 'Add a passkey' });
    const name = within(form).getByLabelText('Name of the passkey') as HTMLInputElement;
    expect(name.value).toBe('Passkey on Chrome on macOS');
    type(name, ' ');
    fireEvent.click(within(form).getByRole('button', { name: 'Create passkey' }));
    expect(await within(form).findByText('Enter a name')).toBeTruthy();
    type(name, 'Work laptop');
    fireEvent.click(within(form).getByRole('button', { name: 'Create passkey' }));

    expect(await screen.findByText('Passkey added')).toBeTruthy();
    await waitFor(() => expect(names(list)).toEqual(['Security key', 'Work laptop']));
    expect(within(list).getByText(/· synced across your devices$/)).toBeTruthy();
    expect(within(passkeys).queryByRole('form', { name: 'Add a passkey' })).toBeNull();
    const options = api.requests.find((r) => r.path === '/api/auth/passkey/generate-register-options');
    expect(options?.query.get('name')).toBe('Work laptop');
    // The device is asked not to make a second passkey for the account.
    const created = webAuthn?.credentials.create.mock.calls[0] as unknown as [CredentialCreationOptions];
    expect(created[0].publicKey?.excludeCredentials?.length).toBe(1);
    expect(posted('/passkey/verify-registration')).toEqual([
      expect.objectContaining({ name: 'Work laptop', response: expect.objectContaining({ id: 'cred-new' }) }),
    ]);
  });

  it.each([
    ['closes the prompt', 'NotAllowedError', 'No passkey was added: the prompt was closed or timed out.'],
    ['already holds one', 'InvalidStateError', 'This device already holds one of your passkeys'],
  ])('says so in plain words when the person %s, and keeps the form', async (_what, refuse, said) => {
    const world = aPasskeyWorld();
    const { posted } = await open('/dashboard/profile', world, { credentialId: 'cred-new', refuse });
    const passkeys = await panel();
    expect(await within(passkeys).findByText('You have no passkeys yet.')).toBeTruthy();
    fireEvent.click(within(passkeys).getByRole('button', { name: 'Add a passkey' }));
    fireEvent.click(within(passkeys).getByRole('button', { name: 'Create passkey' }));
    expect(await screen.findByText(new RegExp(`^${said}`))).toBeTruthy();
    expect(within(passkeys).getByRole('form', { name: 'Add a passkey' })).toBeTruthy();
    expect(posted('/passkey/verify-registration')).toEqual([]);
    expect(world.passkeys).toEqual([]);
  });

  it('renames one in place', async () => {
    const world = aPasskeyWorld({ passkeys: [aPasskey('pk1', 'Work laptop'), aPasskey('pk2', 'Phone')] });
    const { posted } = await open('/dashboard/profile', world);
    const list = await within(await panel()).findByRole('list', { name: 'Your passkeys' });
    fireEvent.click(within(list).getByRole('button', { name: 'Rename Work laptop' }));
    const rename = within(list).getByRole('form', { name: 'Rename Work laptop' });
    const name = within(rename).getByLabelText('New name') as HTMLInputElement;
    expect(name.value).toBe('Work laptop');
    type(name, 'Work laptop (office)');
    fireEvent.click(within(rename).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Passkey renamed')).toBeTruthy();
    await waitFor(() => expect(names(list)).toEqual(['Work laptop (office)', 'Phone']));
    expect(within(list).queryByRole('form')).toBeNull();
    expect(posted('/passkey/update-passkey')).toEqual([{ id: 'pk1', name: 'Work laptop (office)' }]);
  });

  it('removes one after a confirmation', async () => {
    const world = aPasskeyWorld({ passkeys: [aPasskey('pk1', 'Work laptop')] });
    const { posted } = await open('/dashboard/profile', world);
    const passkeys = await panel();
    const list = await within(passkeys).findByRole('list', { name: 'Your passkeys' });
    fireEvent.click(within(list).getByRole('button', { name: 'Remove Work laptop' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Remove this passkey?' });
    expect(
      within(confirm).getByText('“Work laptop” will no longer sign you in to Formgate. Your password still works.'),
    ).toBeTruthy();
    fireEvent.click(within(confirm).getByRole('button', { name: 'Remove passkey' }));

    expect(await screen.findByText('Passkey removed')).toBeTruthy();
    expect(await within(passkeys).findByText('You have no passkeys yet.')).toBeTruthy();
    expect(posted('/passkey/delete-passkey')).toEqual([{ id: 'pk1' }]);
  });
});

describe('signing in with a passkey', () => {
  it('needs no password, and goes where the sign-in was headed', async () => {
    const world = aPasskeyWorld({ signedIn: false, passkeys: [aPasskey('pk1', 'Work laptop')] });
    const { posted, location } = await open('/login?redirect=%2Fdashboard%2Fprofile', world, {
      credentialId: 'cred-pk1',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    expect(await screen.findByRole('heading', { name: 'My profile' })).toBeTruthy();
    expect(location()).toBe('/dashboard/profile');
    expect(posted('/passkey/verify-authentication')).toEqual([
      { response: expect.objectContaining({ id: 'cred-pk1' }) },
    ]);
    expect(posted('/sign-in/email')).toEqual([]);
  });

  it('as a password sign-in does: the screen follows the redirect once the session appears, not /dashboard', async () => {
    const { location } = await open('/login?redirect=%2Fdashboard%2Fprofile', aPasskeyWorld({ signedIn: false }));
    type(await screen.findByLabelText('Email'), 'ada@example.com');
    type(screen.getByLabelText('Password'), PASSWORD);
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'My profile' })).toBeTruthy();
    expect(location()).toBe('/dashboard/profile');
  });

  it('is on the sign-in screen of a known address too', async () => {
    const world = aPasskeyWorld({ signedIn: false, passkeys: [aPasskey('pk1', 'Work laptop')] });
    await open('/login/ada@example.com', world, { credentialId: 'cred-pk1' });
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a passkey' }));
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
  });

  it.each([
    [
      'a passkey the account no longer has',
      { credentialId: 'cred-removed' },
      /^This passkey is not linked to a Formgate account any more\. Sign in with your password/,
    ],
    [
      'a closed prompt',
      { credentialId: 'cred-pk1', refuse: 'NotAllowedError' },
      /^The passkey sign-in was cancelled or timed out\. Try again, or sign in with your password\.$/,
    ],
    ['a browser without passkeys', undefined, /^This browser cannot use passkeys\./],
  ])('says what happened after %s, and stays on the sign-in screen', async (_what, device, said) => {
    const world = aPasskeyWorld({ signedIn: false, passkeys: [aPasskey('pk1', 'Work laptop')] });
    const { location } = await open('/login', world, device);
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with a passkey' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(said);
    expect(location()).toBe('/login');
    expect(screen.getByRole('button', { name: 'Sign in with a passkey' })).toBeTruthy();
    expect(world.account.signedIn).toBe(false);
  });

  it('asks for the session again once the server accepts the passkey, not when it hands out a challenge', () => {
    expect(queriesToInvalidate('/passkey/verify-authentication')).toEqual([sessionKey]);
    for (const path of ['/passkey/generate-authenticate-options', '/passkey/generate-register-options'])
      expect(queriesToInvalidate(path)).toEqual([]);
  });
});
