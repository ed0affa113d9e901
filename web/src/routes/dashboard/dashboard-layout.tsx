import { useQuery } from '@tanstack/react-query';
import { Navigate, Outlet, useLocation } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { SignInGate } from '../../features/organization/sign-in-gate.tsx';
import { sessionQuery } from '../../features/session/session.queries.ts';
import { useServices } from '../../lib/app-context.tsx';
import { DashboardShell } from './dashboard-shell.tsx';

/**
 * The `/dashboard` guard: no session → `/login?redirect=<current location>`; a session without an active
 * organization → `/onboard`; while the session loads, the Loading shell. An organization that requires single
 * sign-on or two-factor shows a member whose session lacks it only their profile, and what to do (`SignInGate`).
 */
export function Component() {
  const session = useQuery(sessionQuery(useServices()));
  const location = useLocation();
  if (session.isPending) return <LoadingShell />;
  if (session.isError) throw session.error;
  if (!session.data) {
    const here = location.pathname + location.search + location.hash;
    return <Navigate to={`/login?redirect=${encodeURIComponent(here)}`} replace />;
  }
  if (!session.data.session.activeOrganizationId) return <Navigate to="/onboard" replace />;
  return (
    <DashboardShell session={session.data}>
      <SignInGate session={session.data}>
        <Outlet />
      </SignInGate>
    </DashboardShell>
  );
}
