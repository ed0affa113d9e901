import { type CreateOrganizationRequest, CreateOrganizationRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Navigate, useLocation } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { Button, SubmitButton, TextField } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import {
  useAcceptInvitation,
  useCreateOrganization,
  useSetActiveOrganization,
} from '../organization/organization.mutations.ts';
import { organizationListQuery, userInvitationsQuery } from './session.queries.ts';
import { useSession } from './use-session.ts';

/**
 * `/onboard`: no session → `/login?redirect=<here>`; an active organization → `/dashboard`. Otherwise: accept a
 * pending invitation, pick an organization the user already belongs to, or create the first one. Each of these
 * sets the active organization, which refreshes the session and so leaves this page.
 */
export function OnboardScreen() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <LoadingShell />;
  if (session.isError) throw session.error;
  if (!session.data)
    return <Navigate to={`/login?redirect=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  if (session.data.session.activeOrganizationId) return <Navigate to="/dashboard" replace />;
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-xl font-semibold">Set up your organization</h1>
      <Invitations />
      <ExistingOrganizations />
      <CreateOrganization />
    </div>
  );
}

function Invitations() {
  const invitations = useQuery(userInvitationsQuery(useServices()));
  const accept = useAcceptInvitation();
  const pending = (invitations.data ?? []).filter((i) => i.status === 'pending');
  if (pending.length === 0) return null;
  return (
    <section aria-labelledby="invitations-heading" className="flex flex-col gap-2">
      <h2 id="invitations-heading" className="font-medium">
        You are invited
      </h2>
      <ul className="flex flex-col gap-2">
        {pending.map((invitation) => (
          <li key={invitation.id} className="flex items-center justify-between gap-3">
            <span className="truncate">{invitation.organizationName ?? 'An organization'}</span>
            <Button disabled={accept.isPending} onClick={() => accept.mutate(invitation.id)}>
              Accept
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ExistingOrganizations() {
  const services = useServices();
  const organizations = useQuery(organizationListQuery(services));
  const choose = useSetActiveOrganization();
  if (!organizations.data?.length) return null;
  return (
    <section aria-labelledby="orgs-heading" className="flex flex-col gap-2">
      <h2 id="orgs-heading" className="font-medium">
        Your organizations
      </h2>
      {organizations.data.map((org) => (
        <Button key={org.id} variant="secondary" disabled={choose.isPending} onClick={() => choose.mutate(org.id)}>
          {org.name}
        </Button>
      ))}
    </section>
  );
}

function CreateOrganization() {
  const form = useForm<CreateOrganizationRequest>({ resolver: zodResolver(CreateOrganizationRequestSchema) });
  const create = useCreateOrganization();
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => create.mutate(v))}>
      <h2 className="font-medium">Create an organization</h2>
      <TextField label="Organization name" autoComplete="organization" {...fieldOf(form, 'name')} />
      <SubmitButton pending={create.isPending} pendingLabel="Creating…">
        Create organization
      </SubmitButton>
    </form>
  );
}
