import { QueryClient } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageBar } from '../src/features/billing/usage-meter.tsx';
import { FeedbackDialog } from '../src/features/site/feedback-dialog.tsx';
import { AppProviders } from '../src/lib/app-context.tsx';
import { createFormgateAuthClient } from '../src/lib/auth-client.ts';
import { queriesToInvalidate } from '../src/lib/auth-invalidation.ts';
import { reloadOnceForChunkError } from '../src/lib/chunk-reload.ts';
import { ErrorScreen } from '../src/routes/root/error-screen.tsx';
import { startServer } from './render-app.tsx';

describe('error screen', () => {
  it('reveals and hides the error message', () => {
    render(<ErrorScreen error={new Error('database on fire')} />);
    expect(screen.getByRole('heading', { name: 'Something went wrong!' })).toBeTruthy();
    expect(screen.queryByText('database on fire')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show Error' }));
    expect(screen.getByText('database on fire')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Hide Error' }));
    expect(screen.queryByText('database on fire')).toBeNull();
  });
});

describe('usage bar', () => {
  it.each([
    [250, 1000, '25%'],
    [0, 1000, '0%'],
    [1500, 1000, '100%'],
  ])('%i of %i emails is %s wide', (used, max, width) => {
    render(<UsageBar quota={{ used, max }} />);
    expect(screen.getByTestId('usage-bar-fill').style.width).toBe(width);
  });
});

describe('chunk reload', () => {
  const chunkError = (m: string) => new TypeError(`Failed to fetch dynamically imported module: ${m}`);

  it('reloads once per distinct message, never for other errors', () => {
    const reload = vi.fn();
    expect(reloadOnceForChunkError(chunkError('/assets/a.js'), sessionStorage, reload)).toBe(true);
    expect(reloadOnceForChunkError(chunkError('/assets/a.js'), sessionStorage, reload)).toBe(false);
    expect(reloadOnceForChunkError(chunkError('/assets/b.js'), sessionStorage, reload)).toBe(true);
    expect(reloadOnceForChunkError(new Error('boom'), sessionStorage, reload)).toBe(false);
    expect(reload).toHaveBeenCalledTimes(2);
  });
});

describe('query invalidation after auth calls', () => {
  it('follows spec §4', () => {
    expect(queriesToInvalidate('/sign-in/email')).toEqual([['session']]);
    expect(queriesToInvalidate('/sign-up/email')).toEqual([['session']]);
    expect(queriesToInvalidate('/organization/set-active')).toEqual([['session'], ['organization', 'active']]);
    expect(queriesToInvalidate('/organization/create')).toEqual([
      ['organization', 'list'],
      ['organization', 'active'],
    ]);
    expect(queriesToInvalidate('/organization/update-member-role')).toEqual([
      ['organization', 'active'],
      ['organization', 'active-member'],
    ]);
    expect(queriesToInvalidate('/get-session')).toEqual([]);
    // Reads refresh nothing: the active organization's own fetch must not wait on its own refetch.
    for (const read of ['list', 'get-full-organization', 'get-active-member', 'list-teams', 'list-invitations'])
      expect(queriesToInvalidate(`/organization/${read}`)).toEqual([]);
    expect(queriesToInvalidate('/organization/remove-member')).toEqual([['organization', 'active']]);
  });
});

describe('feedback dialog', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    vi.restoreAllMocks();
  });

  /** A form endpoint that records each multipart body and answers `status` once `release` is called. */
  async function formEndpoint(status: number) {
    const bodies: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', async () => {
        bodies.push(`${req.headers['content-type']}\n${body}`);
        await gate;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status === 200 }));
      });
    });
    servers.push(server);
    return { endpoint: `${server.url}/f/feedback`, bodies, release };
  }

  function renderDialog(endpoint: string) {
    const queryClient = new QueryClient();
    const services = { auth: createFormgateAuthClient(queryClient, 'http://127.0.0.1:9') };
    render(
      <AppProviders queryClient={queryClient} services={services}>
        <FeedbackDialog email="ada@example.com" endpoint={endpoint} />
      </AppProviders>,
    );
  }

  const type = (text: string) => fireEvent.change(screen.getByLabelText('Your feedback'), { target: { value: text } });

  it('sends email and feedback as multipart, shows the submitting state, toasts, closes and resets', async () => {
    const form = await formEndpoint(200);
    renderDialog(form.endpoint);
    fireEvent.click(screen.getByRole('button', { name: 'Share Feedback' }));
    expect(screen.getByRole('dialog', { name: 'Thanks for using the product!' })).toBeTruthy();
    type('Love it');
    fireEvent.click(screen.getByRole('button', { name: 'Send feedback' }));
    const sending = await screen.findByRole('button', { name: 'Sending…' });
    expect((sending as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(form.bodies).toHaveLength(1));
    expect(form.bodies[0]).toMatch(/^multipart\/form-data/);
    expect(form.bodies[0]).toMatch(/name="email"\r\n\r\nada@example.com/);
    expect(form.bodies[0]).toMatch(/name="feedback"\r\n\r\nLove it/);
    form.release();
    expect(await screen.findByText('Feedback received, thank you!')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    fireEvent.click(screen.getByRole('button', { name: 'Share Feedback' }));
    expect((screen.getByLabelText('Your feedback') as HTMLTextAreaElement).value).toBe('');
  });

  it('alerts "error" when the endpoint fails, and keeps the dialog and the text', async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    const form = await formEndpoint(500);
    form.release();
    renderDialog(form.endpoint);
    fireEvent.click(screen.getByRole('button', { name: 'Share Feedback' }));
    type('Broken');
    fireEvent.click(screen.getByRole('button', { name: 'Send feedback' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('error'));
    expect(screen.getByRole('dialog')).toBeTruthy();
    expect((screen.getByLabelText('Your feedback') as HTMLTextAreaElement).value).toBe('Broken');
  });
});
