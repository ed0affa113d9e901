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
 * Every route of the product (spec §2). Each screen is loaded lazily from its module under `routes/`, which re-exports
 * the feature's screen as `Component`; a guard is the layout route above the screens it protects. Dashboard screens
 * go under `dashboard` (see web/README.md).
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
          { index: true, lazy: () => import('./routes/site/home.tsx') },
          { path: 'waitlist', lazy: () => import('./routes/site/waitlist.tsx') },
          { path: 'pricing', lazy: () => import('./routes/site/pricing.tsx') },
          { path: 'terms', lazy: () => import('./routes/site/terms.tsx') },
          { path: 'privacy', lazy: () => import('./routes/site/privacy.tsx') },
          { path: 'logout', lazy: () => import('./routes/site/logout.tsx') },
        ],
      },
      {
        lazy: () => import('./routes/auth/auth-layout.tsx'),
        children: [
          { path: 'login', lazy: () => import('./routes/auth/login.tsx') },
          // A static segment outranks `login/:email` in react-router; listed first all the same.
          { path: 'login/two-factor', lazy: () => import('./routes/auth/login-two-factor.tsx') },
          { path: 'login/:email', lazy: () => import('./routes/auth/login-email.tsx') },
          { path: 'sign-up', lazy: () => import('./routes/auth/sign-up.tsx') },
          { path: 'check-email', lazy: () => import('./routes/auth/check-email.tsx') },
          { path: 'verify-email', lazy: () => import('./routes/auth/verify-email.tsx') },
          { path: 'forgot-password', lazy: () => import('./routes/auth/forgot-password.tsx') },
          { path: 'reset-password', lazy: () => import('./routes/auth/reset-password.tsx') },
          { path: 'onboard', lazy: () => import('./routes/auth/onboard.tsx') },
          { path: 'accept-invitation/:invitationId', lazy: () => import('./routes/auth/accept-invitation.tsx') },
        ],
      },
      { path: 'form/submission-received', lazy: () => import('./routes/site/submission-received.tsx') },
      {
        path: 'dashboard',
        lazy: () => import('./routes/dashboard/dashboard-layout.tsx'),
        children: [
          { index: true, element: <Navigate to="/dashboard/forms" replace /> },
          { path: 'forms', lazy: () => import('./routes/dashboard/forms/forms-index.tsx') },
          { path: 'forms/create', lazy: () => import('./routes/dashboard/forms/form-create.tsx') },
          {
            path: 'forms/:formSlug',
            lazy: () => import('./routes/dashboard/forms/form/form-layout.tsx'),
            children: [
              { index: true, element: <Navigate to="submissions" replace /> },
              { path: 'overview', lazy: () => import('./routes/dashboard/forms/form/form-overview.tsx') },
              { path: 'settings', lazy: () => import('./routes/dashboard/forms/form/settings/form-settings.tsx') },
              { path: 'example', lazy: () => import('./routes/dashboard/forms/form/form-example.tsx') },
              {
                path: 'submissions',
                lazy: () => import('./routes/dashboard/forms/form/submissions/submissions-layout.tsx'),
                children: [
                  {
                    index: true,
                    lazy: () => import('./routes/dashboard/forms/form/submissions/submissions-index.tsx'),
                  },
                  {
                    path: ':submissionId',
                    lazy: () => import('./routes/dashboard/forms/form/submissions/submission-detail.tsx'),
                  },
                ],
              },
            ],
          },
          { path: 'billing', lazy: () => import('./routes/dashboard/billing/billing.tsx') },
          { path: 'profile', lazy: () => import('./routes/dashboard/profile.tsx') },
          {
            path: 'organization',
            lazy: () => import('./routes/dashboard/organization/organization-layout.tsx'),
            children: [
              { index: true, lazy: () => import('./routes/dashboard/organization/organization.tsx') },
              { path: 'privacy', lazy: () => import('./routes/dashboard/organization/privacy.tsx') },
              { path: 'single-sign-on', lazy: () => import('./routes/dashboard/organization/single-sign-on.tsx') },
              { path: 'audit-log', lazy: () => import('./routes/dashboard/organization/audit-log.tsx') },
            ],
          },
          { path: 'emails', lazy: () => import('./routes/dashboard/emails/emails-index.tsx') },
          { path: 'emails/create', lazy: () => import('./routes/dashboard/emails/email-create.tsx') },
          {
            path: 'emails/verification-success/:email',
            lazy: () => import('./routes/dashboard/emails/email-verified.tsx'),
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];
