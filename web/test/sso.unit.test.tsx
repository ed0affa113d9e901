import { SSO_REQUIRED_MESSAGE } from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { unmetRequirement } from '../src/features/organization/sign-in-gate.tsx';
import { newProviderId, verificationRecord } from '../src/features/sso/sso.queries.ts';
import { ApiError, describeError } from '../src/lib/api.ts';
import { organizationListKey } from '../src/lib/auth-invalidation.ts';
import { ssoErrorPath } from '../src/lib/single-sign-on.ts';
import { startApi } from './api-server.ts';
import { renderApp } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';
import {
  aProvider,
  aWorld,
  DOMAIN,
  IDP_FRAGMENT,
  ISSUER,
  ORG,
  type SsoWorld,
  sessionOf,
  ssoApi,
  TOKEN,
  txtNameOf,
  txtValueOf,
} from './sso-api.ts';

allowSlowScreens();
const track = closeAfterEach();
// The stand-in's identity provider is a fragment of the page (jsdom navigates only within it): back to none.
afterEach(() => window.history.replaceState(null, '', window.location.pathname));

const SSO_PATH = '/dashboard/organization/single-sign-on';

/** The app at `path` over the single sign-on stand-in (its session too: nothing is seeded). */
async function open(path: string, world: SsoWorld) {
  let serverUrl = '';
  const api = track(await startApi(ssoApi(world, () => serverUrl)));
  serverUrl = api.url;
  const view = renderApp(path, { authBaseUrl: api.url });
  const posted = (path: string) =>
    api.requests.filter((r) => r.method === 'POST' && r.path === `/api/auth${path}`).map((r) => r.body);
  const location = () => view.router.state.location.pathname + view.router.state.location.search;
  return { ...view, api, posted, location };
}

const type = (field: HTMLElement, value: string) => fireEvent.change(field, { target: { value } });
const region = (name: string) => screen.findByRole('region', { name });
const requirementBox = async () =>
  within(await region('Require single sign-on')).getByRole('checkbox', {
    name: 'Members must sign in with single sign-on',
  }) as HTMLInputElement;

describe('connecting an identity provider', () => {
  it('takes the issuer, client, domain and role, then shows the redirect URI and the DNS record to publish', async () => {
    const world = aWorld();
    const { posted, api } = await open(SSO_PATH, world);
    const sections = await screen.findByRole('navigation', { name: 'Organization sections' });
    expect(within(sections).getByRole('link', { name: 'Single sign-on' }).getAttribute('aria-current')).toBe('page');
    const connect = await region('Connect an identity provider');
    const form = within(connect).getByRole('form', { name: 'Connect an identity provider' });

    fireEvent.click(within(form).getByRole('button', { name: 'Connect provider' }));
    expect(await within(form).findByText('Enter the issuer URL, like https://login.example.com')).toBeTruthy();
    expect(within(form).getByText('Enter the client ID')).toBeTruthy();
    expect(within(form).getByText('Enter the client secret')).toBeTruthy();
    expect(within(form).getByText('Enter the domain of your addresses, like example.com')).toBeTruthy();
    type(within(form).getByLabelText('Issuer URL'), 'ftp://login.acme.test');
    type(within(form).getByLabelText('Email domain'), '@acme.test');
    fireEvent.click(within(form).getByRole('button', { name: 'Connect provider' }));
    await waitFor(() => expect(within(form).getAllByRole('alert')).toHaveLength(4));
    expect(posted('/sso/register')).toEqual([]);

    type(within(form).getByLabelText('Issuer URL'), ` ${ISSUER} `);
    type(within(form).getByLabelText('Client ID'), 'formgate-client-7731');
    const secret = within(form).getByLabelText('Client secret');
    expect(secret.getAttribute('type')).toBe('password');
    type(secret, 's3cret');
    type(within(form).getByLabelText('Email domain'), 'Acme.Test');
    type(within(form).getByLabelText('New members join as'), 'admin');
    fireEvent.click(within(form).getByRole('button', { name: 'Connect provider' }));

    expect(await screen.findByText('Identity provider connected')).toBeTruthy();
    const [sent] = posted('/sso/register') as [{ providerId: string }];
    expect(sent).toEqual({
      providerId: expect.stringMatching(/^acme-[a-z0-9]{6}$/),
      issuer: ISSUER,
      domain: DOMAIN,
      organizationId: ORG.id,
      defaultRole: 'admin',
      oidcConfig: { clientId: 'formgate-client-7731', clientSecret: 's3cret', pkce: true },
    });

    const details = await region('Identity provider');
    expect(within(details).getByText('Domain not verified')).toBeTruthy();
    expect(within(details).getByText(ISSUER)).toBeTruthy();
    expect(within(details).getByText('****7731')).toBeTruthy();
    expect(within(details).getByText('Admin')).toBeTruthy();
    expect(within(details).getByText(`${api.url}/api/auth/sso/callback/${sent.providerId}`)).toBeTruthy();
    expect(within(details).getByRole('button', { name: 'Copy the redirect URI' })).toBeTruthy();
    expect(within(details).queryByText('s3cret')).toBeNull();

    const domain = await region('Verify your domain');
    const provider = world.provider ?? aProvider();
    expect(within(domain).getByText(txtNameOf(provider))).toBeTruthy();
    expect(within(domain).getByText(txtValueOf(provider))).toBeTruthy();
    expect(within(domain).getByRole('button', { name: 'Copy the record name' })).toBeTruthy();
    expect(within(domain).getByRole('button', { name: 'Copy the record value' })).toBeTruthy();
    // The token came with the registration: not asked for again.
    expect(posted('/sso/request-domain-verification')).toEqual([]);

    const box = await requirementBox();
    expect(box.disabled).toBe(true);
    expect(within(await region('Require single sign-on')).getByText('Verify the domain first.')).toBeTruthy();
  });

  it.each([
    [
      'a domain another organization verified',
      'https://login.taken.test',
      'taken.test',
      'Another organization has verified taken.test',
    ],
    [
      'an issuer without OpenID Connect discovery',
      'https://no-discovery.acme.test',
      DOMAIN,
      /^Formgate could not use this issuer\. OIDC discovery endpoint not found\./,
    ],
  ])('says why it was not connected: %s', async (_what, issuer, domain, said) => {
    const world = aWorld();
    await open(SSO_PATH, world);
    const form = within(await region('Connect an identity provider')).getByRole('form');
    type(within(form).getByLabelText('Issuer URL'), issuer);
    type(within(form).getByLabelText('Client ID'), 'client');
    type(within(form).getByLabelText('Client secret'), 'secret');
    type(within(form).getByLabelText('Email domain'), domain);
    fireEvent.click(within(form).getByRole('button', { name: 'Connect provider' }));
    expect(await within(form).findByText(said)).toBeTruthy();
    expect(world.provider).toBeNull();
  });

  it('verifies the domain: says when the record is not found yet, then shows "Verified" once it is', async () => {
    const world = aWorld({ provider: aProvider() });
    const { posted } = await open(SSO_PATH, world);
    const domain = await region('Verify your domain');
    // Back on the screen later: the pending token is asked for again.
    expect(await within(domain).findByText(txtValueOf(aProvider()))).toBeTruthy();
    expect(posted('/sso/request-domain-verification')).toEqual([{ providerId: 'acme-k3x9qa' }]);

    fireEvent.click(within(domain).getByRole('button', { name: 'Verify domain' }));
    expect(await within(domain).findByText(/^The TXT record was not found yet\./)).toBeTruthy();
    expect(screen.queryByText('Domain verified')).toBeNull();

    world.txt.set(txtNameOf(aProvider()), ['v=spf1 -all', txtValueOf(aProvider())]);
    fireEvent.click(within(domain).getByRole('button', { name: 'Verify domain' }));
    expect(await screen.findByText('Domain verified')).toBeTruthy();
    const details = await region('Identity provider');
    await waitFor(() => expect(within(details).getByText('Verified')).toBeTruthy());
    expect(screen.queryByRole('region', { name: 'Verify your domain' })).toBeNull();
    expect((await requirementBox()).disabled).toBe(false);
    expect(posted('/sso/verify-domain')).toEqual([{ providerId: 'acme-k3x9qa' }, { providerId: 'acme-k3x9qa' }]);
  });

  it('requires single sign-on (owners exempt), and removes the provider only once that is off', async () => {
    const world = aWorld({ provider: aProvider({ domainVerified: true }) });
    const { posted } = await open(SSO_PATH, world);
    const requirement = await region('Require single sign-on');
    expect(within(requirement).getByText(/Owners are exempt, so that the organization stays reachable/)).toBeTruthy();
    // An owner is exempt: nothing to warn them about.
    expect(within(requirement).queryByText(/once this is on, you will have to as well/)).toBeNull();
    const box = await requirementBox();
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    expect(await screen.findByText('Members must now sign in with single sign-on')).toBeTruthy();
    await waitFor(() => expect(box.checked).toBe(true));
    expect(world.requireSso).toBe(true);

    const removal = await region('Remove the identity provider');
    fireEvent.click(within(removal).getByRole('button', { name: 'Remove provider' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Remove the identity provider?' });
    expect(within(confirm).getByText(new RegExp(`sign in to Acme through ${ISSUER}`))).toBeTruthy();
    fireEvent.click(within(confirm).getByRole('button', { name: 'Remove provider' }));
    expect(
      await within(removal).findByText(/^Members must sign in with single sign-on: turn that off first/),
    ).toBeTruthy();
    expect(world.provider).not.toBeNull();

    fireEvent.click(box);
    expect(await screen.findByText('Single sign-on is no longer required')).toBeTruthy();
    await waitFor(() => expect(box.checked).toBe(false));
    fireEvent.click(within(removal).getByRole('button', { name: 'Remove provider' }));
    fireEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove provider' }));
    expect(await screen.findByText('Identity provider removed')).toBeTruthy();
    expect(await region('Connect an identity provider')).toBeTruthy();
    expect(world.provider).toBeNull();
    expect(posted('/organization/update')).toEqual([
      { organizationId: ORG.id, data: { requireSso: true } },
      { organizationId: ORG.id, data: { requireSso: false } },
    ]);
    expect(posted('/sso/delete-provider')).toEqual([{ providerId: 'acme-k3x9qa' }, { providerId: 'acme-k3x9qa' }]);
  });

  it('warns an admin who signed in another way that the requirement applies to them too', async () => {
    await open(SSO_PATH, aWorld({ role: 'admin', provider: aProvider({ domainVerified: true }) }));
    const requirement = await region('Require single sign-on');
    expect(
      await within(requirement).findByText(
        'You did not sign in through the identity provider: once this is on, you will have to as well.',
      ),
    ).toBeTruthy();
  });

  it('is neither listed nor shown to a member, who reads whether it is required', async () => {
    const { api } = await open(SSO_PATH, aWorld({ role: 'member', requireSso: true, ssoOrganizationId: ORG.id }));
    expect(
      await screen.findByText('Only owners and admins of the organization can set up single sign-on.'),
    ).toBeTruthy();
    expect(screen.getByText(/^Members must sign in with single sign-on/)).toBeTruthy();
    const sections = screen.getByRole('navigation', { name: 'Organization sections' });
    expect(within(sections).queryByRole('link', { name: 'Single sign-on' })).toBeNull();
    expect(api.requests.some((r) => r.path.startsWith('/api/auth/sso/'))).toBe(false);
  });

  it('names the provider after the organization, short enough for a DNS label, and its record after that', () => {
    expect(newProviderId('acme-k3x9qa', 'zz0000')).toBe('acme-k3x9qa-zz0000');
    // Cut at 33 characters, never ending on a dash.
    expect(newProviderId(`${'a'.repeat(32)}-${'b'.repeat(20)}`, 'zz0000')).toBe(`${'a'.repeat(32)}-zz0000`);
    expect(`_formgate-verification-${newProviderId('x'.repeat(60))}`.length).toBeLessThanOrEqual(63);
    expect(verificationRecord('acme-zz0000', DOMAIN, TOKEN)).toEqual({
      name: `_formgate-verification-acme-zz0000.${DOMAIN}`,
      value: `_formgate-verification-acme-zz0000=${TOKEN}`,
    });
  });
});

describe('signing in with SSO', () => {
  /** The sign-in screen's SSO form, opened. */
  async function ssoForm() {
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in with SSO' }));
    return screen.getByRole('form', { name: 'Sign in with SSO' });
  }

  it("sends the browser to the identity provider of the work address's domain, back to where it was headed", async () => {
    const world = aWorld({ signedIn: false, provider: aProvider({ domainVerified: true }) });
    const { posted } = await open('/login?redirect=%2Fdashboard%2Fforms', world);
    // Folded at first: the screen's own "Email" field stays the only one.
    expect(await screen.findByLabelText('Email')).toBeTruthy();
    expect(screen.queryByLabelText('Work email')).toBeNull();
    const form = await ssoForm();
    const email = within(form).getByLabelText('Work email');
    expect(document.activeElement).toBe(email);

    type(email, 'new.person');
    fireEvent.click(within(form).getByRole('button', { name: 'Sign in with SSO' }));
    expect(await within(form).findByText('Enter a valid email address')).toBeTruthy();
    type(email, `new.person@${DOMAIN}`);
    fireEvent.click(within(form).getByRole('button', { name: 'Sign in with SSO' }));

    await waitFor(() => expect(window.location.hash).toBe(IDP_FRAGMENT));
    expect(within(form).getByRole('button', { name: 'Taking you to your identity provider…' })).toBeTruthy();
    expect(posted('/sign-in/sso')).toEqual([
      {
        email: `new.person@${DOMAIN}`,
        callbackURL: '/dashboard/forms',
        errorCallbackURL: '/login?redirect=%2Fdashboard%2Fforms&sso_error=1',
      },
    ]);
  });

  it.each([
    ['no identity provider is set up for the domain', null, /^No identity provider is set up for this domain\./],
    ['the domain is not verified yet', aProvider(), /^This domain has not been verified yet\./],
  ])('says so when %s', async (_what, provider, said) => {
    await open('/login', aWorld({ signedIn: false, provider }));
    const form = await ssoForm();
    type(within(form).getByLabelText('Work email'), `new.person@${DOMAIN}`);
    fireEvent.click(within(form).getByRole('button', { name: 'Sign in with SSO' }));
    expect(await within(form).findByText(said)).toBeTruthy();
    expect(window.location.hash).toBe('');
  });

  it('says a failed return from the identity provider, never the description in the address', async () => {
    await open(
      '/login?redirect=%2Fdashboard&sso_error=1&error=access_denied&error_description=Call+0800+123+now',
      aWorld({ signedIn: false }),
    );
    const form = await screen.findByRole('form', { name: 'Sign in with SSO' });
    expect(
      within(form).getByText(
        'Single sign-on did not work. Your identity provider did not let you in. Try again, or ask your administrator.',
      ),
    ).toBeTruthy();
    expect(screen.queryByText(/0800/)).toBeNull();
  });

  it('marks the address it comes back to after a failure, once', () => {
    expect(ssoErrorPath('/login?redirect=%2Fdashboard')).toBe('/login?redirect=%2Fdashboard&sso_error=1');
    expect(ssoErrorPath('/dashboard/forms?sso_error=1&error=invalid_state&error_description=x')).toBe(
      '/dashboard/forms?sso_error=1',
    );
  });
});

describe('the dashboard of an organization that requires single sign-on', () => {
  const required = (over: Partial<SsoWorld> = {}) =>
    aWorld({ role: 'member', requireSso: true, provider: aProvider({ domainVerified: true }), ...over });

  it('shows a member who signed in another way only the way through the identity provider, back to this screen', async () => {
    const { posted, router } = await open('/dashboard/forms?page=2', required());
    expect(await screen.findByRole('heading', { name: 'Acme requires single sign-on' })).toBeTruthy();
    expect(screen.getByText(`${SSO_REQUIRED_MESSAGE}.`)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Forms' })).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Dashboard' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Sign in with SSO' }));
    await waitFor(() => expect(window.location.hash).toBe(IDP_FRAGMENT));
    expect(screen.getByRole('button', { name: 'Taking you to your identity provider…' })).toHaveProperty(
      'disabled',
      true,
    );
    // The organization's own provider, whatever the member's address; the address only as a hint.
    expect(posted('/sign-in/sso')).toEqual([
      {
        organizationSlug: ORG.slug,
        loginHint: 'ada@example.com',
        callbackURL: '/dashboard/forms?page=2',
        errorCallbackURL: '/dashboard/forms?page=2&sso_error=1',
      },
    ]);

    // The profile stays open.
    await router.navigate('/dashboard/profile');
    expect(await screen.findByRole('heading', { name: 'My profile' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: /requires single sign-on/ })).toBeNull();
  });

  it('says a failed return from the identity provider on the screen it came back to', async () => {
    await open('/dashboard/forms?sso_error=1&error=invalid_state', required());
    expect(await screen.findByRole('heading', { name: 'Acme requires single sign-on' })).toBeTruthy();
    expect(
      screen.getByText(
        'Single sign-on did not work. The sign-in took too long, or began in another browser. Try again, or ask your administrator.',
      ),
    ).toBeTruthy();
  });

  it.each([
    ['an owner who signed in with a password', { role: 'owner' }],
    ['a member who came through the provider', { ssoOrganizationId: ORG.id }],
  ])('lets %s through', async (_who, over) => {
    await open('/dashboard/forms', required(over));
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: /requires single sign-on/ })).toBeNull();
  });

  it('appears when the API refuses for want of single sign-on, even if the organization was read before', async () => {
    const { queryClient } = await open('/dashboard/forms', required());
    queryClient.setQueryData(organizationListKey, [{ ...ORG, requireSso: false }]);
    expect(await screen.findByRole('heading', { name: 'Acme requires single sign-on' })).toBeTruthy();
  });

  it('asks for single sign-on before two-factor, of anyone but an owner, as the server does', () => {
    const org = { ...ORG, requireSso: true, requireTwoFactor: true };
    const session = sessionOf(aWorld());
    expect(unmetRequirement(org, session, 'member')).toBe('sso');
    expect(unmetRequirement(org, session, 'admin,owner')).toBe('two-factor');
    expect(
      unmetRequirement(org, { ...session, session: { ...session.session, ssoOrganizationId: ORG.id } }, 'member'),
    ).toBe('two-factor');
    // A session that came through another organization's provider does not count.
    expect(
      unmetRequirement(org, { ...session, session: { ...session.session, ssoOrganizationId: 'org2' } }, 'admin'),
    ).toBe('sso');
    // Until the role is known, nothing is decided for single sign-on.
    expect(unmetRequirement({ ...org, requireTwoFactor: false }, session, null)).toBeNull();
  });

  it('a refusal reads as what to do', () => {
    const refusal = new ApiError({ status: 403, statusText: 'Forbidden', body: { error: { code: 'SSO_REQUIRED' } } });
    expect(describeError(refusal)).toBe(SSO_REQUIRED_MESSAGE);
  });
});
