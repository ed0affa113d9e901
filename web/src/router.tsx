import { Navigate, Outlet, type RouteObject, ScrollRestoration } from 'react-router';
import { LoadingShell } from './components/loading-shell.tsx';
import { RootErrorBoundary } from './routes/root/error-screen.tsx';
import { NotFound } from './routes/root/not-found.tsx';

function Root() {
  return (
    <>
      <Outlet />
      <ScrollRestoration />
    </>
  );
}

/**
 * Every route of the product (spec §2). Each screen is its own lazily loaded module exporting `Component`; a guard
 * is the layout route above the screens it protects. Dashboard screens go under `dashboard` (see web/README.md).
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Root />,
    errorElement: <RootErrorBoundary />,
    hydrateFallbackElement: <LoadingShell />,
    children: [
      {
        lazy: () => import('./routes/site/site-layout.tsx'),
        children: [
          { index: true, lazy: () => import('./features/site/home.tsx') },
          { path: 'waitlist', lazy: () => import('./features/site/waitlist.tsx') },
          { path: 'pricing', lazy: () => import('./features/billing/pricing.tsx') },
          { path: 'terms', lazy: () => import('./features/site/terms.tsx') },
          { path: 'privacy', lazy: () => import('./features/site/privacy.tsx') },
          { path: 'logout', lazy: () => import('./features/session/logout.tsx') },
        ],
      },
      {
        lazy: () => import('./routes/auth/auth-layout.tsx'),
        children: [
          { path: 'login', lazy: () => import('./features/session/login.tsx') },
          { path: 'login/:email', lazy: () => import('./features/session/login-email.tsx') },
          { path: 'sign-up', lazy: () => import('./features/session/sign-up.tsx') },
          { path: 'check-email', lazy: () => import('./features/session/check-email.tsx') },
          { path: 'verify-email', lazy: () => import('./features/session/verify-email.tsx') },
          { path: 'forgot-password', lazy: () => import('./features/session/forgot-password.tsx') },
          { path: 'reset-password', lazy: () => import('./features/session/reset-password.tsx') },
          { path: 'onboard', lazy: () => import('./features/session/onboard.tsx') },
          { path: 'accept-invitation/:invitationId', lazy: () => import('./features/session/accept-invitation.tsx') },
        ],
      },
      { path: 'form/submission-received', lazy: () => import('./features/site/submission-received.tsx') },
      {
        path: 'dashboard',
        lazy: () => import('./routes/dashboard/dashboard-layout.tsx'),
        children: [
          { index: true, element: <Navigate to="/dashboard/forms" replace /> },
          { path: 'forms', lazy: () => import('./features/forms/forms-index.tsx') },
          { path: 'forms/create', lazy: () => import('./features/forms/form-create.tsx') },
          {
            path: 'forms/:formSlug',
            lazy: () => import('./features/forms/form-layout.tsx'),
            children: [
              { index: true, element: <Navigate to="submissions" replace /> },
              { path: 'overview', lazy: () => import('./features/forms/form-overview.tsx') },
              { path: 'settings', lazy: () => import('./features/forms/form-settings.tsx') },
              { path: 'example', lazy: () => import('./features/forms/form-example.tsx') },
              {
                path: 'submissions',
                lazy: () => import('./features/submissions/submissions-layout.tsx'),
                children: [
                  {
                    index: true,
                    lazy: () => import('./features/submissions/submissions-index.tsx'),
                  },
                  {
                    path: ':submissionId',
                    lazy: () => import('./features/submissions/submission-detail.tsx'),
                  },
                ],
              },
            ],
          },
          { path: 'billing', lazy: () => import('./features/billing/billing.tsx') },
          { path: 'profile', lazy: () => import('./features/account/profile.tsx') },
          { path: 'organization', lazy: () => import('./features/organization/organization.tsx') },
          { path: 'emails', lazy: () => import('./features/emails/emails-index.tsx') },
          { path: 'emails/create', lazy: () => import('./features/emails/email-create.tsx') },
          {
            path: 'emails/verification-success/:email',
            lazy: () => import('./features/emails/email-verified.tsx'),
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];
