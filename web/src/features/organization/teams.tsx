import { type PermissionRequest, type TeamNameRequest, TeamNameSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { InlineForm, Panel, SelectField } from '../../components/panel.tsx';
import { Button, TextField } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import type { FullOrganization } from '../session/session.queries.ts';
import { teamMembersQuery } from './organization.queries.ts';
import {
  useAddTeamMember,
  useCreateTeam,
  useDeleteTeam,
  useRemoveTeamMember,
  useRenameTeam,
} from './teams.mutations.ts';

type Can = (request: PermissionRequest) => boolean;
type Team = NonNullable<FullOrganization['teams']>[number];

/** The organization's teams: create, rename, delete, and who is in each. */
export function Teams({ organization: org, can }: { organization: FullOrganization; can: Can }) {
  const form = useForm<TeamNameRequest>({ resolver: zodResolver(TeamNameSchema), defaultValues: { name: '' } });
  const create = useCreateTeam({ onSuccess: () => form.reset({ name: '' }) });
  const teams = org.teams ?? [];
  return (
    <Panel title="Teams" description="Teams group members of the organization.">
      {teams.length === 0 ? <p className="text-sm text-zinc-600 dark:text-zinc-400">No teams yet.</p> : null}
      <ul aria-label="Teams" className="flex flex-col gap-3">
        {teams.map((team) => (
          <TeamRow key={team.id} team={team} organization={org} can={can} />
        ))}
      </ul>
      {can({ team: ['create'] }) ? (
        <InlineForm label="Create a team" onSubmit={form.handleSubmit((v) => create.mutate(v))}>
          <TextField className="sm:flex-1" label="New team name" {...fieldOf(form, 'name')} />
          <Button type="submit" disabled={create.isPending}>
            Create team
          </Button>
        </InlineForm>
      ) : null}
    </Panel>
  );
}

function TeamRow({ team, organization: org, can }: { team: Team; organization: FullOrganization; can: Can }) {
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const remove = useDeleteTeam(team);
  const canUpdate = can({ team: ['update'] });
  return (
    <li className="flex flex-col gap-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        {renaming ? (
          <RenameTeam team={team} onDone={() => setRenaming(false)} />
        ) : (
          <span className="font-medium break-words">{team.name}</span>
        )}
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide members' : 'Members'}
          </Button>
          {canUpdate && !renaming ? (
            <Button variant="secondary" aria-label={`Rename ${team.name}`} onClick={() => setRenaming(true)}>
              Rename
            </Button>
          ) : null}
          {can({ team: ['delete'] }) ? (
            <ConfirmDialog
              trigger="Delete"
              triggerVariant="secondary"
              triggerLabel={`Delete team ${team.name}`}
              title={`Delete the team ${team.name}?`}
              description={<p>Its members stay in the organization.</p>}
              confirmLabel="Delete team"
              pending={remove.isPending}
              onConfirm={() => remove.mutate()}
            />
          ) : null}
        </div>
      </div>
      {open ? <TeamMembers team={team} organization={org} canUpdate={canUpdate} /> : null}
    </li>
  );
}

function RenameTeam({ team, onDone }: { team: Team; onDone: () => void }) {
  const form = useForm<TeamNameRequest>({ resolver: zodResolver(TeamNameSchema), values: { name: team.name } });
  const rename = useRenameTeam(team.id, { onSuccess: onDone });
  return (
    <form
      noValidate
      aria-label={`Rename ${team.name}`}
      className="flex flex-col gap-2 sm:flex-row sm:items-end"
      onSubmit={form.handleSubmit((v) => rename.mutate(v))}
    >
      <TextField label="Team name" {...fieldOf(form, 'name')} />
      <div className="flex gap-2">
        <Button type="submit" disabled={rename.isPending}>
          Save
        </Button>
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** Who is in the team (removable by those who may update it), and a form to add a member of the organization. */
function TeamMembers(props: { team: Team; organization: FullOrganization; canUpdate: boolean }) {
  const { team, organization: org, canUpdate } = props;
  const members = useQuery(teamMembersQuery(useServices(), team.id));
  const [addUserId, setAddUserId] = useState('');
  const addMember = useAddTeamMember(team.id, { onSuccess: () => setAddUserId('') });
  const removeMember = useRemoveTeamMember(team.id);
  const inTeam = new Set((members.data ?? []).map((m) => m.userId));
  const candidates = org.members.filter((m) => !inTeam.has(m.userId));
  return (
    <div className="flex flex-col gap-2 text-sm">
      {members.isPending ? <p>Loading…</p> : null}
      {members.data?.length === 0 ? <p className="text-zinc-600 dark:text-zinc-400">Nobody in this team.</p> : null}
      <ul aria-label={`Members of ${team.name}`} className="flex flex-col gap-1">
        {(members.data ?? []).map((m) => {
          const label = org.members.find((o) => o.userId === m.userId)?.user.email ?? m.userId;
          return (
            <li key={m.id} className="flex items-center justify-between gap-2">
              <span className="break-all">{label}</span>
              {canUpdate ? (
                <Button
                  variant="ghost"
                  aria-label={`Remove ${label} from ${team.name}`}
                  disabled={removeMember.isPending}
                  onClick={() => removeMember.mutate(m.userId)}
                >
                  Remove
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
      {canUpdate && members.data && candidates.length > 0 ? (
        <form
          aria-label={`Add a member to ${team.name}`}
          className="flex flex-col gap-2 sm:flex-row sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            if (addUserId) addMember.mutate(addUserId);
          }}
        >
          <SelectField label="Add member" value={addUserId} onChange={(e) => setAddUserId(e.target.value)}>
            <option value="">Choose a member…</option>
            {candidates.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.user.email}
              </option>
            ))}
          </SelectField>
          <Button type="submit" variant="secondary" disabled={!addUserId || addMember.isPending}>
            Add to team
          </Button>
        </form>
      ) : null}
    </div>
  );
}
