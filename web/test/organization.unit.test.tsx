import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { organizationKeys } from '../src/features/organization/organization.queries.ts';
import { activeMemberKey, activeOrganizationKey } from '../src/lib/auth-invalidation.ts';
import { type ApiHandler, startApi } from './api-server.ts';
import { renderApp, signedIn } from './render-app.tsx';

const at = '2026-11-01T10:00:00.000Z';
const member = (id: string, email: string, role: string) => ({
  id: `m-${id}`,
  organizationId: 'org1',
  userId: id,
  role,
  createdAt: at,
  user: { id, name: email.split('@')[0], email, image: null },
});

const organization = {
  id: 'org1',
  name: 'Acme',
  slug: 'acme',
  createdAt: at,
  members: [member('u1', 'ada@example.com', 'owner'), member('u2', 'bob@example.com', 'member')],
  invitations: [
    {
      id: 'inv1',
      organizationId: 'org1',
      email: 'cy@example.com',
      role: 'member',
      status: 'pending',
      expiresAt: '2026-11-03T10:00:00.000Z',
      inviterId: 'u1',
    },
  ],
  teams: [{ id: 't1', name: 'Sales', organizationId: 'org1', createdAt: at }],
};

const key = {
  id: 'k1',
  name: 'CI',
  start: 'fg_AbC',
  scope: 'write',
  createdAt: at,
  lastUsedAt: null,
  createdBy: 'u1',
};

/** The organization screen for the signed-in user `u1` holding `role`, its other calls answered by `handle`. */
async function renderOrganization(role: string, handle: ApiHandler = () => undefined) {
  const api = await startApi(handle);
  const view = renderApp('/dashboard/organization', { session: signedIn('org1'), authBaseUrl: api.url });
  view.queryClient.setQueryData(activeOrganizationKey, organization);
  view.queryClient.setQueryData(activeMemberKey, { ...member('u1', 'ada@example.com', role) });
  view.queryClient.setQueryData(organizationKeys.apiKeys, [key]);
  view.queryClient.setQueryData(organizationKeys.settings, {
    submission_notification_email: null,
    email_management: false,
  });
  await screen.findByRole('heading', { name: 'Acme', level: 1 });
  return { ...view, api };
}

describe('organization screen', () => {
  const apis: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const a of apis.splice(0)) await a.close();
  });
  const track = <T extends { api: { close(): Promise<void> } }>(v: T) => {
    apis.push(v.api);
    return v;
  };

  it('loads everything from the server (an organization read never waits on its own refresh)', async () => {
    const api = await startApi((req) => {
      if (req.path === '/api/auth/get-session') return { body: signedIn('org1') };
      if (req.path === '/api/auth/organization/list') return { body: [{ id: 'org1', name: 'Acme', slug: 'acme' }] };
      if (req.path === '/api/auth/organization/get-full-organization') return { body: organization };
      if (req.path === '/api/auth/organization/get-active-member')
        return { body: member('u1', 'ada@example.com', 'owner') };
      if (req.path === '/api/v1/api-keys') return { body: { data: [key] } };
      if (req.path === '/api/v1/orgs/settings')
        return { body: { submission_notification_email: null, email_management: false } };
      return undefined;
    });
    apis.push(api);
    renderApp('/dashboard/organization', { authBaseUrl: api.url });
    expect(await screen.findByRole('heading', { name: 'Acme', level: 1 })).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Delete organization' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /^Organization: Acme/ })).toBeTruthy();
    expect(await screen.findByText('CI')).toBeTruthy();
  }, 20_000); // the first test of a file also pays for transforming the lazily loaded screen

  it('a member sees the members, invitations and teams but no action to invite, remove, rename or delete', async () => {
    track(await renderOrganization('member'));
    expect(screen.getByRole('list', { name: 'Members' })).toBeTruthy();
    expect(screen.getByText('cy@example.com')).toBeTruthy();
    expect(screen.getByText('Sales')).toBeTruthy();
    for (const name of [
      /^Remove /,
      'Send invitation',
      /Cancel the invitation/,
      'Create team',
      /^Rename /,
      /^Delete team/,
      'Delete organization',
      'Save',
    ])
      expect(screen.queryByRole('button', { name })).toBeNull();
    expect(screen.queryByRole('combobox', { name: /^Role of/ })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'API keys' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Organization settings' })).toBeNull();
  });

  it('an admin manages members, invitations, teams, keys and settings, but cannot delete the organization', async () => {
    track(await renderOrganization('admin'));
    expect(screen.getByRole('button', { name: 'Remove bob@example.com' })).toBeTruthy();
    expect(screen.getByRole('combobox', { name: 'Role of bob@example.com' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send invitation' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel the invitation of cy@example.com' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete team Sales' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'API keys' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Organization settings' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Delete organization' })).toBeNull();
    // Nobody is offered to remove or demote themselves here.
    expect(screen.queryByRole('button', { name: 'Remove ada@example.com' })).toBeNull();
  });

  it('an owner may delete the organization, once its slug is typed', async () => {
    const { api } = track(
      await renderOrganization('owner', (req) =>
        req.path === '/api/auth/organization/delete' ? { body: organization } : undefined,
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Delete organization' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete Acme?' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete organization' }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.change(within(dialog).getByLabelText(/to confirm/), { target: { value: 'acme' } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() =>
      expect(api.requests).toContainEqual(
        expect.objectContaining({ path: '/api/auth/organization/delete', body: { organizationId: 'org1' } }),
      ),
    );
  });

  it("shows the server's denial message when it refuses anyway", async () => {
    const denial = 'unauthorized to access resource "member"';
    track(
      await renderOrganization('admin', (req) =>
        req.path === '/api/auth/organization/remove-member'
          ? { status: 403, body: { code: 'YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER', message: denial } }
          : undefined,
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Remove bob@example.com' }));
    const dialog = await screen.findByRole('alertdialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove member' }));
    expect(await screen.findByText(denial)).toBeTruthy();
    expect(screen.getByText('bob@example.com')).toBeTruthy();
  });

  it('shows a new API key once, with a warning and a copy button, then never again', async () => {
    const secret = 'fg_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const created = { ...key, id: 'k2', name: 'Deploy', start: 'fg_AbC', scope: 'read' };
    let listed = [key];
    const { api, router } = track(
      await renderOrganization('admin', (req) => {
        if (req.method === 'POST' && req.path === '/api/v1/api-keys') {
          listed = [created, key];
          return { status: 201, body: { ...created, key: secret } };
        }
        if (req.method === 'GET' && req.path === '/api/v1/api-keys') return { body: { data: listed } };
        return undefined;
      }),
    );
    const form = screen.getByRole('form', { name: 'Create an API key' });
    fireEvent.change(within(form).getByLabelText('Key name'), { target: { value: 'Deploy' } });
    fireEvent.change(within(form).getByLabelText('Scope'), { target: { value: 'read' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Create key' }));

    const shown = await screen.findByRole('region', { name: 'Your new API key' });
    expect(within(shown).getByTestId('new-api-key').textContent).toBe(secret);
    expect(within(shown).getByText(/shown only once/)).toBeTruthy();
    expect(within(shown).getByRole('button', { name: 'Copy key' })).toBeTruthy();
    expect(api.requests).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/api/v1/api-keys', body: { name: 'Deploy', scope: 'read' } }),
    );
    // The list refreshed and names the new key by its first characters only.
    const keys = await screen.findByRole('list', { name: 'API keys' });
    await waitFor(() => expect(within(keys).getByText('Deploy')).toBeTruthy());

    fireEvent.click(within(shown).getByRole('button', { name: 'I have saved it' }));
    expect(screen.queryByRole('region', { name: 'Your new API key' })).toBeNull();
    expect(document.body.textContent).not.toContain(secret);

    // Leaving and coming back does not bring it back either.
    await router.navigate('/dashboard/billing');
    await router.navigate('/dashboard/organization');
    await screen.findByRole('heading', { name: 'API keys' });
    expect(document.body.textContent).not.toContain(secret);
  });
});
