import './index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppProviders } from './lib/app-context.tsx';
import { createFormgateAuthClient } from './lib/auth-client.ts';
import { createQueryClient } from './lib/query-client.ts';
import { routes } from './router.tsx';

// The dashboard's composition root: one query client, one auth client, one router.
const queryClient = createQueryClient();
const services = { auth: createFormgateAuthClient(queryClient) };
const router = createBrowserRouter(routes);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <AppProviders queryClient={queryClient} services={services}>
        <RouterProvider router={router} />
      </AppProviders>
    </StrictMode>,
  );
}
