import { type InviteMemberRequest, InviteMemberRequestSchema, type PermissionRequest } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { formatDateTime, InlineForm, Panel, SelectField } from '../../components/panel.tsx';
import { Button, SubmitButton, TextField } from '../../components/ui.tsx';
import type { FullOrganization } from '../session/session.queries.ts';
import {
  useCancelInvitation,
  useInviteMember,
  useRemoveMember,
  useUpdateMemberRole,
} from './organization.mutations.ts';

type Can = (request: PermissionRequest) => boolean;
const ROLES = ['owner', 'admin', 'member'] as const;

/** Members and their roles, then invitations: the pending ones, and a form to send one. */
export function Members(props: { organization: FullOrganization; currentUserId: string; can: Can }) {
  const { organization: org, can } = props;
  const updateRole = useUpdateMemberRole();
  const remove = useRemoveMember();
  const canUpdate = can({ member: ['update'] });
  const canRemove = can({ member: ['delete'] });
  return (
    <>
      <Panel title="Members">
        <ul aria-label="Members" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {org.members.map((m) => {
            const self = m.userId === props.currentUserId;
            return (
              <li key={m.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
                <div className="flex min-w-0 flex-col text-sm">
                  <span className="font-medium break-words">
                    {m.user.name || m.user.email}
                    {self ? <span className="text-zinc-600 dark:text-zinc-400"> (you)</span> : null}
                  </span>
                  <span className="break-all text-zinc-600 dark:text-zinc-400">{m.user.email}</span>
                </div>
                <div className="flex flex-wrap items-center gap-2">
                  {canUpdate && !self ? (
                    <SelectField
                      label={`Role of ${m.user.email}`}
                      hideLabel
                      value={m.role}
                      disabled={updateRole.isPending}
                      onChange={(e) => updateRole.mutate({ memberId: m.id, role: e.target.value })}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                      {ROLES.includes(m.role as 'member') ? null : <option value={m.role}>{m.role}</option>}
                    </SelectField>
                  ) : (
                    <span className="rounded bg-zinc-100 px-2 py-1 text-xs font-medium dark:bg-zinc-800">{m.role}</span>
                  )}
                  {canRemove && !self ? (
                    <ConfirmDialog
                      trigger="Remove"
                      triggerVariant="secondary"
                      triggerLabel={`Remove ${m.user.email}`}
                      title={`Remove ${m.user.email}?`}
                      description={
                        <p>They lose access to this organization at once, and the API keys they created are revoked.</p>
                      }
                      confirmLabel="Remove member"
                      pending={remove.isPending}
                      onConfirm={() => remove.mutate(m.id)}
                    />
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      </Panel>
      <Invitations organization={org} can={can} />
    </>
  );
}

function Invitations({ organization: org, can }: { organization: FullOrganization; can: Can }) {
  const form = useForm<InviteMemberRequest>({
    resolver: zodResolver(InviteMemberRequestSchema),
    defaultValues: { email: '', role: 'member' },
  });
  const invite = useInviteMember({ onSuccess: (_d, v) => form.reset({ email: '', role: v.role }) });
  const cancel = useCancelInvitation();
  const pending = org.invitations.filter((i) => i.status === 'pending');
  const canInvite = can({ invitation: ['create'] });
  const canCancel = can({ invitation: ['cancel'] });
  if (!canInvite && pending.length === 0) return null;
  return (
    <Panel title="Invitations" description="An invitation is an email with a link; it expires if not accepted.">
      {canInvite ? (
        <InlineForm label="Invite a member" onSubmit={form.handleSubmit((v) => invite.mutate(v))}>
          <TextField className="sm:flex-1" label="Email" type="email" autoComplete="off" {...fieldOf(form, 'email')} />
          <SelectField label="Role" {...form.register('role')}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </SelectField>
          <SubmitButton pending={invite.isPending} pendingLabel="Sending…">
            Send invitation
          </SubmitButton>
        </InlineForm>
      ) : null}
      {pending.length > 0 ? (
        <ul aria-label="Pending invitations" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {pending.map((i) => (
            <li key={i.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
              <div className="flex min-w-0 flex-col text-sm">
                <span className="font-medium break-all">{i.email}</span>
                <span className="text-zinc-600 dark:text-zinc-400">
                  {i.role} · expires {formatDateTime(i.expiresAt)}
                </span>
              </div>
              {canCancel ? (
                <Button
                  variant="secondary"
                  aria-label={`Cancel the invitation of ${i.email}`}
                  disabled={cancel.isPending}
                  onClick={() => cancel.mutate(i.id)}
                >
                  Cancel invitation
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No pending invitations.</p>
      )}
    </Panel>
  );
}
