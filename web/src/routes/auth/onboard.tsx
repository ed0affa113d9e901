import { type CreateOrganizationRequest, CreateOrganizationRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Navigate, useLocation } from 'react-router';
import { Button, TextField } from '../../components/ui.tsx';
import { organizationListQuery } from '../../features/session/session.queries.ts';
import { useSession } from '../../features/session/use-session.ts';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { LoadingShell } from '../dashboard/loading-shell.tsx';

/** A slug better-auth accepts, unique enough that two "Acme"s do not collide. */
const slugOf = (name: string) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'org'
  }-${Math.random().toString(36).slice(2, 8)}`;

/**
 * `/onboard`: no session → `/login?redirect=<here>`; an active organization → `/dashboard`. Otherwise: accept a
 * pending invitation, pick an organization the user already belongs to, or create the first one. Each of these
 * sets the active organization, which refreshes the session and so leaves this page.
 */
export function Component() {
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
  const { auth } = useServices();
  const invitations = useQuery({
    queryKey: ['organization', 'user-invitations'],
    queryFn: async () => unwrap(await auth.organization.listUserInvitations()),
  });
  const accept = useMutation({
    mutationFn: async (invitationId: string) => {
      const accepted = unwrap(await auth.organization.acceptInvitation({ invitationId }));
      unwrap(await auth.organization.setActive({ organizationId: accepted.invitation.organizationId }));
    },
  });
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
  const choose = useMutation({
    mutationFn: async (organizationId: string) =>
      unwrap(await services.auth.organization.setActive({ organizationId })),
  });
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
  const { auth } = useServices();
  const form = useForm<CreateOrganizationRequest>({ resolver: zodResolver(CreateOrganizationRequestSchema) });
  const create = useMutation({
    // better-auth makes the new organization active on the server, but only set-active refreshes the session
    // here (spec §4), which is what moves the user on to the dashboard.
    mutationFn: async ({ name }: CreateOrganizationRequest) => {
      const created = unwrap(await auth.organization.create({ name, slug: slugOf(name) }));
      unwrap(await auth.organization.setActive({ organizationId: created.id }));
    },
  });
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => create.mutate(v))}>
      <h2 className="font-medium">Create an organization</h2>
      <TextField
        label="Organization name"
        autoComplete="organization"
        error={form.formState.errors.name?.message}
        {...form.register('name')}
      />
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create organization'}
      </Button>
    </form>
  );
}
