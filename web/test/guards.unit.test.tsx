import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, signedIn, startServer } from './render-app.tsx';

const pathOf = (router: ReturnType<typeof renderApp>['router']) =>
  router.state.location.pathname + router.state.location.search;

describe('route guards', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it('/login sends a signed-in user to /dashboard, which lands on /dashboard/forms', async () => {
    const { router } = renderApp('/login', { session: signedIn('org1') });
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
  });

  it('/login shows the sign-in form to a visitor', async () => {
    const { router } = renderApp('/login?redirect=%2Fdashboard%2Fbilling', { session: null });
    expect(await screen.findByRole('heading', { name: 'Sign in to Formgate' })).toBeTruthy();
    expect(screen.getByLabelText('Email')).toBeTruthy();
    expect(pathOf(router)).toBe('/login?redirect=%2Fdashboard%2Fbilling');
  });

  it('/onboard without a session goes to /login with the current address as redirect', async () => {
    const { router } = renderApp('/onboard', { session: null });
    await waitFor(() => expect(pathOf(router)).toBe('/login?redirect=%2Fonboard'));
  });

  it('/onboard with an active organization goes to the dashboard', async () => {
    const { router } = renderApp('/onboard', { session: signedIn('org1') });
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
  });

  it('/onboard with a session and no organization offers to create one', async () => {
    renderApp('/onboard', { session: signedIn(null) });
    expect(await screen.findByRole('heading', { name: 'Set up your organization' })).toBeTruthy();
    expect(screen.getByLabelText('Organization name')).toBeTruthy();
  });

  it('/dashboard without a session goes to /login with redirect set to the current location', async () => {
    const { router } = renderApp('/dashboard/billing?tab=invoices', { session: null });
    await waitFor(() => expect(pathOf(router)).toBe('/login?redirect=%2Fdashboard%2Fbilling%3Ftab%3Dinvoices'));
  });

  it('/dashboard with a session but no active organization goes to /onboard', async () => {
    const { router } = renderApp('/dashboard/forms', { session: signedIn(null) });
    await waitFor(() => expect(pathOf(router)).toBe('/onboard'));
  });

  it('/dashboard shows the Loading shell while the session loads', async () => {
    let answer: (() => void) | undefined;
    const auth = await startServer((_req, res) => {
      answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(signedIn('org1')));
    });
    servers.push(auth);
    const { router } = renderApp('/dashboard', { authBaseUrl: auth.url });
    expect(await screen.findByText('Loading')).toBeTruthy();
    await waitFor(() => expect(answer).toBeDefined());
    answer?.();
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
    expect(await screen.findByRole('heading', { name: 'Forms' })).toBeTruthy();
  });

  it('/dashboard/ redirects to /dashboard/forms', async () => {
    const { router } = renderApp('/dashboard/', { session: signedIn('org1') });
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
  });

  it('an unknown address shows Not Found', async () => {
    renderApp('/no/such/page', { session: null });
    expect(await screen.findByRole('heading', { name: 'Not Found' })).toBeTruthy();
  });
});
