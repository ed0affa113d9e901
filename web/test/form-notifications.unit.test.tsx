import { DEFAULT_FORM_SETTINGS } from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { aForm, startFormsApi } from './forms-api.ts';
import { renderApp, signedIn } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';

allowSlowScreens();

const closing = closeAfterEach();

const email = (address: string, verified: boolean) => ({
  id: address,
  email: address,
  verified,
  createdAt: '2026-11-01T10:00:00.000Z',
});

async function openSettings(role: string, notifications = DEFAULT_FORM_SETTINGS.notifications) {
  const server = await startFormsApi({
    forms: [aForm({ settings: { ...aForm().settings, notifications } })],
    notificationEmails: [
      email('alerts@example.com', true),
      email('pending@example.com', false),
      email('ops@example.com', true),
    ],
  });
  closing(server);
  renderApp('/dashboard/forms/contact/settings', { session: signedIn('org1'), apiBaseUrl: server.url, role });
  const panel = await screen.findByRole('region', { name: 'Notifications' });
  return { server, panel };
}

describe('form settings: notifications', () => {
  it('offers the verified addresses only, and saves the notifications as the API expects them', async () => {
    const { server, panel } = await openSettings('admin');
    const inside = within(panel);
    await inside.findByLabelText('alerts@example.com');
    expect(inside.queryByLabelText('pending@example.com')).toBeNull();
    expect(inside.getByRole('link', { name: 'Add a notification email' }).getAttribute('href')).toBe(
      '/dashboard/emails/create',
    );
    fireEvent.click(inside.getByLabelText('ops@example.com'));
    fireEvent.change(inside.getByLabelText('Subject'), { target: { value: '{{form}}: {{subject}}' } });
    fireEvent.click(inside.getByRole('switch', { name: 'Send an autoresponse to the submitter' }));
    fireEvent.change(inside.getByLabelText('Autoresponse text'), { target: { value: 'Thanks, we got it.' } });
    fireEvent.click(inside.getByRole('switch', { name: 'Email new submissions' }));
    fireEvent.click(inside.getByRole('button', { name: 'Save notifications' }));

    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      settings: {
        notifications: {
          enabled: false,
          emails: ['ops@example.com'],
          subject: '{{form}}: {{subject}}',
          autoresponse: { enabled: true, text: 'Thanks, we got it.' },
        },
      },
    });
    expect(await screen.findByText('Notification settings saved')).toBeTruthy();
  });

  it('shows the current choice, lets a gone address be unticked, and saves an empty subject as the default', async () => {
    const { server, panel } = await openSettings('owner', {
      enabled: true,
      emails: ['alerts@example.com', 'gone@example.com'],
      subject: 'Old',
      autoresponse: { enabled: false, text: '' },
    });
    const inside = within(panel);
    expect(((await inside.findByLabelText('alerts@example.com')) as HTMLInputElement).checked).toBe(true);
    expect((inside.getByLabelText('ops@example.com') as HTMLInputElement).checked).toBe(false);
    expect(inside.getByText('(not verified: receives nothing)')).toBeTruthy();
    fireEvent.click(inside.getByLabelText(/gone@example\.com/));
    fireEvent.change(inside.getByLabelText('Subject'), { target: { value: '   ' } });
    fireEvent.click(inside.getByRole('button', { name: 'Save notifications' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toMatchObject({
      settings: { notifications: { emails: ['alerts@example.com'], subject: null } },
    });
  });

  it('refuses an autoresponse over 5,000 characters', async () => {
    const { server, panel } = await openSettings('owner');
    const inside = within(panel);
    fireEvent.change(await inside.findByLabelText('Autoresponse text'), { target: { value: 'x'.repeat(5_001) } });
    fireEvent.click(inside.getByRole('button', { name: 'Save notifications' }));
    expect(await inside.findByText('At most 5,000 characters')).toBeTruthy();
    expect(server.requests.some((r) => r.method === 'PATCH')).toBe(false);
  });

  it('is read-only for a member', async () => {
    const { panel } = await openSettings('member');
    const inside = within(panel);
    // Disabled by their fieldset.
    expect((await inside.findByLabelText('alerts@example.com')).matches(':disabled')).toBe(true);
    expect(inside.getByRole('button', { name: 'Save notifications' }).matches(':disabled')).toBe(true);
    expect(inside.getByLabelText('Subject').matches(':disabled')).toBe(true);
    expect(inside.getByRole('switch', { name: 'Email new submissions' }).matches(':disabled')).toBe(true);
  });
});
