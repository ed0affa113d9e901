import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { startApi } from './api-server.ts';
import { renderApp, signedIn } from './render-app.tsx';

const apis: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const a of apis.splice(0)) await a.close();
});

describe('My profile', () => {
  const session = { ...signedIn('org1'), session: { activeOrganizationId: 'org1', token: 'tok-here' } };
  const row = (token: string, userAgent: string) => ({
    id: `s-${token}`,
    token,
    userId: 'u1',
    userAgent,
    ipAddress: '203.0.113.7',
    createdAt: '2026-11-01T10:00:00.000Z',
    expiresAt: '2026-12-01T10:00:00.000Z',
  });

  it('"Sign out of all other sessions" calls revoke-other-sessions, then refreshes the session and the list', async () => {
    let sessions = [
      row('tok-here', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0'),
      row('tok-phone', 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1'),
    ];
    const api = await startApi((req) => {
      if (req.path === '/api/auth/get-session') return { body: session };
      if (req.path === '/api/auth/list-sessions') return { body: sessions };
      if (req.path === '/api/auth/revoke-other-sessions') {
        sessions = sessions.slice(0, 1);
        return { body: { status: true } };
      }
      return undefined;
    });
    apis.push(api);
    renderApp('/dashboard/profile', { authBaseUrl: api.url });
    const list = await screen.findByRole('list', { name: 'Your sessions' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(2));
    expect(within(list).getByText('This device')).toBeTruthy();
    expect(within(list).getByText('Safari on iOS')).toBeTruthy();
    expect(within(list).getAllByRole('button', { name: /^Sign out Safari on iOS/ })).toHaveLength(1);

    const before = api.requests.length;
    fireEvent.click(screen.getByRole('button', { name: 'Sign out of all other sessions' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(1));
    const after = api.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(after[0]).toBe('POST /api/auth/revoke-other-sessions');
    expect(after.slice(1)).toEqual(
      expect.arrayContaining(['GET /api/auth/get-session', 'GET /api/auth/list-sessions']),
    );
    expect(await screen.findByText('Signed out of your other sessions')).toBeTruthy();
  }, 20_000); // the first test of a file also pays for transforming the lazily loaded screen

  it('saves the name through update-user', async () => {
    const api = await startApi((req) => {
      if (req.path === '/api/auth/get-session') return { body: session };
      if (req.path === '/api/auth/list-sessions') return { body: [] };
      if (req.path === '/api/auth/update-user') return { body: { status: true } };
      return undefined;
    });
    apis.push(api);
    renderApp('/dashboard/profile', { authBaseUrl: api.url });
    const name = await screen.findByLabelText('Name');
    expect((name as HTMLInputElement).value).toBe('Ada');
    fireEvent.change(name, { target: { value: 'Ada Lovelace' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save name' }));
    await waitFor(() =>
      expect(api.requests).toContainEqual(
        expect.objectContaining({ path: '/api/auth/update-user', body: { name: 'Ada Lovelace' } }),
      ),
    );
    expect(within(screen.getByRole('main')).getByText('ada@example.com', { exact: false })).toBeTruthy();
  });

  it('shows when each session was last active; "Sign out everywhere" calls revoke-sessions and goes to the sign-in page', async () => {
    let signedOut = false;
    const api = await startApi((req) => {
      if (req.path === '/api/auth/get-session') return { body: signedOut ? null : session };
      if (req.path === '/api/auth/list-sessions')
        return { body: [{ ...row('tok-here', 'Firefox/140.0 (X11; Linux)'), updatedAt: '2026-11-20T08:30:00.000Z' }] };
      if (req.path === '/api/auth/revoke-sessions') {
        signedOut = true;
        return { body: { status: true } };
      }
      return undefined;
    });
    apis.push(api);
    const { router } = renderApp('/dashboard/profile', { authBaseUrl: api.url });
    const list = await screen.findByRole('list', { name: 'Your sessions' });
    await waitFor(() => expect(within(list).getByText(/last active/)).toBeTruthy());
    expect(within(list).getByText(/last active/).textContent).toContain('2026');
    fireEvent.click(screen.getByRole('button', { name: 'Sign out everywhere' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toContain('POST /api/auth/revoke-sessions');
  });

  it('a new password always signs the other sessions out: no choice is offered, and the request says so', async () => {
    const api = await startApi((req) => {
      if (req.path === '/api/auth/get-session') return { body: session };
      if (req.path === '/api/auth/list-sessions') return { body: [] };
      if (req.path === '/api/auth/change-password') return { body: { token: null } };
      return undefined;
    });
    apis.push(api);
    renderApp('/dashboard/profile', { authBaseUrl: api.url });
    const password = await screen.findByRole('region', { name: 'Password' });
    expect(within(password).getByText('Changing it signs you out of every other session.')).toBeTruthy();
    expect(within(password).queryByRole('checkbox')).toBeNull();
    fireEvent.change(within(password).getByLabelText('Current password'), { target: { value: 'the old password' } });
    fireEvent.change(within(password).getByLabelText('New password'), { target: { value: 'a much longer new one' } });
    fireEvent.click(within(password).getByRole('button', { name: 'Change password' }));
    await waitFor(() =>
      expect(api.requests).toContainEqual(
        expect.objectContaining({
          path: '/api/auth/change-password',
          body: {
            currentPassword: 'the old password',
            newPassword: 'a much longer new one',
            revokeOtherSessions: true,
          },
        }),
      ),
    );
  });
});
