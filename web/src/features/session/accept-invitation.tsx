import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { Button } from '../../components/ui.tsx';
import { useAcceptInvitation } from '../organization/organization.mutations.ts';
import { useSession } from './use-session.ts';

/** The link of an invitation email: sign in (or up) first, then join and make it the active organization. */
export function AcceptInvitationScreen() {
  const { invitationId = '' } = useParams();
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const accept = useAcceptInvitation({ onSuccess: () => navigate('/dashboard', { replace: true }) });
  if (session.isPending) return <LoadingShell />;
  if (!session.data) return <Navigate to={`/login?redirect=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Join the organization</h1>
      <p>You were invited to an organization on Formgate as {session.data.user.email}.</p>
      <Button disabled={accept.isPending} onClick={() => accept.mutate(invitationId)}>
        {accept.isPending ? 'Joining…' : 'Accept the invitation'}
      </Button>
      <Link to="/onboard" className="text-sm text-brand-600 underline dark:text-brand-50">
        Not now
      </Link>
    </div>
  );
}
