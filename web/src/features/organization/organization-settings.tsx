import {
  type PermissionRequest,
  type UpdateOrganizationRequest,
  UpdateOrganizationRequestSchema,
} from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { Panel } from '../../components/panel.tsx';
import { SubmitButton, TextField } from '../../components/ui.tsx';
import type { FullOrganization } from '../session/session.queries.ts';
import { useDeleteOrganization, useUpdateOrganization, useUpdateOrgFeatures } from './organization.mutations.ts';
import { orgSettingsQuery } from './organization.queries.ts';
import { OrganizationSecurity } from './organization-security.tsx';

type Can = (request: PermissionRequest) => boolean;

/**
 * Name and slug, the two-factor requirement, the email-management feature, and deleting the organization: each only
 * for roles that may.
 */
export function OrganizationSettings({ organization: org, can }: { organization: FullOrganization; can: Can }) {
  const canUpdate = can({ organization: ['update'] });
  const canDelete = can({ organization: ['delete'] });
  if (!canUpdate && !canDelete) return null;
  return (
    <>
      {canUpdate ? <NameAndSlug organization={org} /> : null}
      {canUpdate ? <OrganizationSecurity organization={org} /> : null}
      {canUpdate ? <Features /> : null}
      {canDelete ? <DeleteOrganization organization={org} /> : null}
    </>
  );
}

function NameAndSlug({ organization: org }: { organization: FullOrganization }) {
  const form = useForm<UpdateOrganizationRequest>({
    resolver: zodResolver(UpdateOrganizationRequestSchema),
    values: { name: org.name, slug: org.slug },
  });
  const update = useUpdateOrganization(org.id);
  return (
    <Panel title="Organization settings">
      <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => update.mutate(v))}>
        <TextField label="Name" autoComplete="organization" {...fieldOf(form, 'name')} />
        <TextField
          label="Slug"
          autoComplete="off"
          hint="Lowercase letters, digits and dashes; unique on this instance."
          {...fieldOf(form, 'slug')}
        />
        <div>
          <SubmitButton pending={update.isPending} pendingLabel="Saving…" disabled={!form.formState.isDirty}>
            Save
          </SubmitButton>
        </div>
      </form>
    </Panel>
  );
}

function Features() {
  const settings = useQuery(orgSettingsQuery());
  const patch = useUpdateOrgFeatures();
  const enabled = settings.data?.email_management === true;
  return (
    <Panel title="Features">
      <label className="flex items-start gap-3 text-sm">
        <input
          type="checkbox"
          className="mt-0.5 size-4"
          checked={enabled}
          disabled={!settings.data || patch.isPending}
          onChange={(e) => patch.mutate({ email_management: e.target.checked })}
        />
        <span className="flex flex-col gap-0.5">
          <span className="font-medium">Email management</span>
          <span className="text-zinc-600 dark:text-zinc-400">
            Shows the Emails screen, where the organization verifies the addresses that receive submission
            notifications.
          </span>
        </span>
      </label>
    </Panel>
  );
}

function DeleteOrganization({ organization: org }: { organization: FullOrganization }) {
  const navigate = useNavigate();
  const remove = useDeleteOrganization(org, { onSuccess: () => navigate('/onboard', { replace: true }) });
  return (
    <Panel title="Delete organization" tone="danger">
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Deletes the organization with its forms, submissions, teams, invitations and API keys, for every member. It
        cannot be undone.
      </p>
      <div>
        <ConfirmDialog
          trigger="Delete organization"
          title={`Delete ${org.name}?`}
          description={<p>Everything in this organization is deleted for all its members.</p>}
          confirmLabel={remove.isPending ? 'Deleting…' : 'Delete organization'}
          typeToConfirm={org.slug}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
    </Panel>
  );
}
