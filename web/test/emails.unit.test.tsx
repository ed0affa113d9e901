import type { NotificationEmailDto } from '@formgate/contracts';
import { cleanup, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flagQuery } from '../src/features/flags/flags.queries.ts';
import { type RecordedRequest, startApi } from './api-server.ts';
import { renderApp, signedIn } from './render-app.tsx';

vi.setConfig({ testTimeout: 30_000 });
configure({ asyncUtilTimeout: 15_000 });

const apis: { close(): Promise<void> }[] = [];
afterEach(async () => {
  // Sonner keeps its toasts across renders: one test's toast must not answer the next test's query.
  toast.dismiss();
  for (const a of apis.splice(0)) await a.close();
});

const item = (email: string, verified: boolean, id = email): NotificationEmailDto => ({
  id,
  email,
  verified,
  createdAt: '2026-11-01T10:00:00.000Z',
});

/** The notification-emails API over real HTTP, from memory, as the notifications service answers it. */
async function emailsApi(initial: NotificationEmailDto[], ownEmail = 'ada@example.com') {
  let emails = [...initial];
  const api = await startApi((req: RecordedRequest) => {
    if (req.path === '/api/v1/notification-emails' && req.method === 'GET') return { body: { data: emails } };
    if (req.path === '/api/v1/notification-emails' && req.method === 'POST') {
      const email = String((req.body as { email: string }).email).toLowerCase();
      const known = emails.find((e) => e.email === email);
      if (known) return { status: 200, body: known };
      const created = item(email, email === ownEmail, `id-${emails.length + 1}`);
      emails = [...emails, created];
      return { status: 201, body: created };
    }
    if (req.path.startsWith('/api/v1/notification-emails/') && req.method === 'DELETE') {
      const id = decodeURIComponent(req.path.split('/').pop() ?? '');
      emails = emails.filter((e) => e.id !== id);
      return { status: 204 };
    }
    return undefined;
  });
  apis.push(api);
  return api;
}

const open = (path: string, url: string, role: string, flag = true) => {
  const view = renderApp(path, { session: signedIn('org1'), authBaseUrl: url, role });
  view.queryClient.setQueryData(flagQuery('emailManagement').queryKey, flag);
  return view;
};

describe('Emails screens', () => {
  it('with the flag off, the sidebar has no Emails link and /dashboard/emails says it is off', async () => {
    const api = await emailsApi([]);
    open('/dashboard/emails', api.url, 'owner', false);
    expect(await screen.findByText(/Email management is off/)).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Emails' })).toBeNull();
  });

  it('lists addresses with their state; a member reads them and is offered no change', async () => {
    const api = await emailsApi([item('alerts@example.com', true), item('ops@example.com', false)]);
    open('/dashboard/emails', api.url, 'member');
    const list = await screen.findByRole('list', { name: 'Notification emails' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      'alerts@example.comVerified',
      'ops@example.comWaiting for confirmation',
    ]);
    expect(screen.queryByRole('link', { name: 'Add email' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Remove|Resend/ })).toBeNull();
    expect(screen.queryByText(/not sent yet/)).toBeNull();
  });

  it('an admin adds an address: "Verification email sent", and it waits for confirmation', async () => {
    const api = await emailsApi([]);
    const { router } = open('/dashboard/emails/create', api.url, 'admin');
    fireEvent.change(await screen.findByLabelText('Email address'), { target: { value: 'Ops@Example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add email' }));
    expect(await screen.findByText('Verification email sent')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard/emails'));
    expect(api.requests).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/api/v1/notification-emails',
        body: { email: 'Ops@Example.com' },
      }),
    );
    const list = await screen.findByRole('list', { name: 'Notification emails' });
    expect(within(list).getByText('Waiting for confirmation')).toBeTruthy();
  });

  it('adding one’s own sign-in address says "Email verified"', async () => {
    const api = await emailsApi([]);
    open('/dashboard/emails/create', api.url, 'owner');
    fireEvent.change(await screen.findByLabelText('Email address'), { target: { value: 'ada@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add email' }));
    expect(await screen.findByText('Email verified')).toBeTruthy();
    expect(await screen.findByText('Verified')).toBeTruthy();
  });

  it('refuses an address that is not one before calling the API', async () => {
    const api = await emailsApi([]);
    open('/dashboard/emails/create', api.url, 'owner');
    fireEvent.change(await screen.findByLabelText('Email address'), { target: { value: 'a@b.c\r\nBcc: x@y.z' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add email' }));
    expect(await screen.findByText('Enter a valid email address')).toBeTruthy();
    expect(api.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('resends a verification, and removes an address after confirming', async () => {
    const api = await emailsApi([item('alerts@example.com', true, 'a1'), item('ops@example.com', false, 'o1')]);
    open('/dashboard/emails', api.url, 'owner');
    expect(screen.queryByRole('button', { name: 'Resend verification to alerts@example.com' })).toBeNull();
    fireEvent.click(await screen.findByRole('button', { name: 'Resend verification to ops@example.com' }));
    await waitFor(() =>
      expect(api.requests).toContainEqual(
        expect.objectContaining({ method: 'POST', body: { email: 'ops@example.com' } }),
      ),
    );
    expect(await screen.findByText('Verification email sent')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Remove ops@example.com' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove ops@example.com?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove email' }));
    await waitFor(() =>
      expect(api.requests).toContainEqual(
        expect.objectContaining({ method: 'DELETE', path: '/api/v1/notification-emails/o1' }),
      ),
    );
    expect(await screen.findByText('Notification email removed')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('ops@example.com')).toBeNull());
    expect(screen.getByText('alerts@example.com')).toBeTruthy();
  });

  it('says when a verification link was invalid or expired', async () => {
    const api = await emailsApi([item('ops@example.com', false)]);
    open('/dashboard/emails?verification=invalid', api.url, 'owner');
    expect((await screen.findByRole('alert')).textContent).toMatch(/verification link is invalid or has expired/);
  });

  it('the verification-success page confirms a verified address, and only one', async () => {
    const api = await emailsApi([item('ops@example.com', true), item('new@example.com', false)]);
    open('/dashboard/emails/verification-success/ops%40example.com', api.url, 'member');
    expect(await screen.findByText(/Email verified\. This address can now receive/)).toBeTruthy();
    cleanup();
    open('/dashboard/emails/verification-success/new%40example.com', api.url, 'member');
    expect(
      await screen.findByText('This address is not a verified notification email of this organization.'),
    ).toBeTruthy();
  });
});
