import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { SessionData } from '../src/features/session/session.queries.ts';
import { setApiBaseUrl } from '../src/lib/api.ts';
import { AppProviders } from '../src/lib/app-context.tsx';
import { createFormgateAuthClient } from '../src/lib/auth-client.ts';
import { activeMemberKey, sessionKey } from '../src/lib/auth-invalidation.ts';
import { createQueryClient } from '../src/lib/query-client.ts';
import { routes } from '../src/router.tsx';

export const signedIn = (activeOrganizationId: string | null): SessionData => ({
  user: { id: 'u1', email: 'ada@example.com', name: 'Ada', emailVerified: true },
  session: { activeOrganizationId },
});

/**
 * Renders the whole app at `path` with the real router, query client and toaster. `session`: the session already
 * known (`null`: signed out); absent, it is fetched from `authBaseUrl`. `/api/*` calls go to `apiBaseUrl`.
 */
export function renderApp(
  path: string,
  options: {
    session?: SessionData | null;
    authBaseUrl?: string;
    apiBaseUrl?: string;
    /** The active member's role, as better-auth's `get-active-member` answers it. */
    role?: string;
  } = {},
) {
  // `/api/*` requests go to `apiBaseUrl` (a `startServer`); without it they stay relative, as in a browser.
  setApiBaseUrl(options.apiBaseUrl ?? '');
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({ queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } });
  if (options.session !== undefined) queryClient.setQueryData(sessionKey, options.session);
  if (options.role !== undefined) queryClient.setQueryData(activeMemberKey, { role: options.role });
  const services = { auth: createFormgateAuthClient(queryClient, options.authBaseUrl ?? 'http://127.0.0.1:9') };
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <AppProviders queryClient={queryClient} services={services}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...view, router, queryClient };
}

/** A real HTTP server on a free port, answering with `handle`. */
export async function startServer(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
