import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { aForm, aWebhook, startFormsApi } from './forms-api.ts';
import { renderApp, signedIn } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';

allowSlowScreens();

const closing = closeAfterEach();

const HOSTILE_URL = 'https://hooks.example/<img src=x onerror=alert(1)>?q="x"&y=<script>';

async function openSettings(role: string, webhooks = [aWebhook('w1')]) {
  const server = await startFormsApi({ forms: [aForm()], webhooks });
  closing(server);
  renderApp('/dashboard/forms/contact/settings', { session: signedIn('org1'), apiBaseUrl: server.url, role });
  const panel = await screen.findByRole('region', { name: 'Webhooks' });
  return { server, panel, inside: within(panel) };
}

describe('form settings: webhooks', () => {
  it('lists each endpoint: its URL as text, kind, events, state with the reason, and recent success rate', async () => {
    const { inside } = await openSettings('member', [
      aWebhook('w1', {
        url: HOSTILE_URL,
        kind: 'slack',
        events: ['submission.created', 'submission.spam'],
        stats: { recent: 13, succeeded: 12, failed: 1, successRate: 12 / 13 },
      }),
      aWebhook('w2', {
        enabled: false,
        disabledReason: 'The endpoint answered 410 Gone',
        stats: { recent: 1, succeeded: 0, failed: 1, successRate: 0 },
      }),
    ]);
    const first = await inside.findByRole('listitem', { name: HOSTILE_URL });
    expect(first.querySelector('img, script')).toBeNull();
    expect(within(first).getByText('Slack · New submission, Spam')).toBeTruthy();
    expect(within(first).getByText('Enabled')).toBeTruthy();
    expect(within(first).getByText(/12 of 13 recent deliveries succeeded \(92%\)/)).toBeTruthy();
    const second = inside.getByRole('listitem', { name: 'https://hooks.example/w2' });
    expect(within(second).getByText('Disabled: The endpoint answered 410 Gone')).toBeTruthy();
    expect(within(second).getByText(/0 of 1 recent deliveries succeeded \(0%\)/)).toBeTruthy();
  });

  it('is read-only for a member: no add form, no actions', async () => {
    const { inside } = await openSettings('member');
    await inside.findByRole('listitem', { name: 'https://hooks.example/w1' });
    expect(inside.getByText('Only owners and admins of the organization can change webhooks.')).toBeTruthy();
    expect(inside.queryByRole('form', { name: 'Add a webhook' })).toBeNull();
    expect(inside.queryByRole('button', { name: /Disable|Rotate|Delete/ })).toBeNull();
  });

  it('adds an endpoint and shows its secret once, with a copy button and a warning', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { server, inside } = await openSettings('admin', []);
    expect(await inside.findByText('No webhook yet.')).toBeTruthy();
    const add = inside.getByRole('form', { name: 'Add a webhook' });
    fireEvent.change(within(add).getByLabelText('Endpoint URL'), { target: { value: ' https://hooks.example/new ' } });
    fireEvent.change(within(add).getByLabelText('Format'), { target: { value: 'discord' } });
    fireEvent.click(within(add).getByLabelText(/Spam/));
    fireEvent.click(within(add).getByLabelText(/Deleted submission/));
    fireEvent.click(within(add).getByRole('button', { name: 'Add webhook' }));

    const shown = await inside.findByRole('region', { name: 'Your webhook signing secret' });
    expect(server.requests.find((r) => r.method === 'POST')?.body).toEqual({
      url: 'https://hooks.example/new',
      kind: 'discord',
      events: ['submission.created', 'submission.spam', 'submission.deleted'],
    });
    expect(within(shown).getByText('whsec_test1')).toBeTruthy();
    expect(within(shown).getByText(/shown only once/)).toBeTruthy();
    fireEvent.click(within(shown).getByRole('button', { name: 'Copy secret' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('whsec_test1'));
    expect(await inside.findByRole('listitem', { name: 'https://hooks.example/new' })).toBeTruthy();
    fireEvent.click(within(shown).getByRole('button', { name: 'I have saved it' }));
    await waitFor(() => expect(inside.queryByText('whsec_test1')).toBeNull());
  });

  it('checks the URL and the events before sending anything', async () => {
    const { server, inside } = await openSettings('owner', []);
    const add = await inside.findByRole('form', { name: 'Add a webhook' });
    fireEvent.change(within(add).getByLabelText('Endpoint URL'), { target: { value: 'ftp://files.example/' } });
    fireEvent.click(within(add).getByLabelText(/New submission/));
    fireEvent.click(within(add).getByRole('button', { name: 'Add webhook' }));
    expect(await within(add).findByText('An http:// or https:// address')).toBeTruthy();
    expect(within(add).getByText('Choose at least one event')).toBeTruthy();
    expect(server.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('shows the API’s refusal of a private address', async () => {
    const { inside } = await openSettings('owner', []);
    const add = await inside.findByRole('form', { name: 'Add a webhook' });
    fireEvent.change(within(add).getByLabelText('Endpoint URL'), { target: { value: 'http://127.0.0.1/x' } });
    fireEvent.click(within(add).getByRole('button', { name: 'Add webhook' }));
    expect(await screen.findByText('Webhooks cannot be sent to localhost, loopback or private addresses')).toBeTruthy();
    expect(inside.queryByRole('region', { name: 'Your webhook signing secret' })).toBeNull();
  });

  it('rotates the secret (shown once again), disables, and deletes after a confirmation', async () => {
    const { server, inside } = await openSettings('owner');
    const item = await inside.findByRole('listitem', { name: 'https://hooks.example/w1' });
    fireEvent.click(within(item).getByRole('button', { name: 'Rotate the secret of https://hooks.example/w1' }));
    const shown = await inside.findByRole('region', { name: 'Your webhook signing secret' });
    expect(within(shown).getByText('whsec_test1')).toBeTruthy();
    expect(server.requests.some((r) => r.method === 'POST' && r.path.endsWith('/webhooks/w1/rotate-secret'))).toBe(
      true,
    );

    const disable = within(item).getByRole('button', { name: 'Disable webhook https://hooks.example/w1' });
    // Actions wait while the list refreshes after the rotation.
    await waitFor(() => expect(disable.matches(':disabled')).toBe(false));
    fireEvent.click(disable);
    await waitFor(() => expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({ enabled: false }));
    expect(await within(item).findByText('Disabled')).toBeTruthy();

    fireEvent.click(within(item).getByRole('button', { name: 'Delete webhook https://hooks.example/w1' }));
    const dialog = await screen.findByRole('alertdialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete webhook' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'DELETE')).toBe(true));
    expect(server.requests.find((r) => r.method === 'DELETE')?.path).toBe('/api/v1/forms/f1/webhooks/w1');
    expect(await inside.findByText('No webhook yet.')).toBeTruthy();
  });
});
