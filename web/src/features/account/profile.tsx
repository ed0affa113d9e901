import {
  type ChangePasswordRequest,
  ChangePasswordRequestSchema,
  type UpdateProfileRequest,
  UpdateProfileRequestSchema,
} from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { formatDateTime, Panel } from '../../components/panel.tsx';
import { Button, Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import type { SessionData } from '../session/session.queries.ts';
import { useSession } from '../session/use-session.ts';
import {
  useChangePassword,
  useDeleteAccount,
  useRevokeAllSessions,
  useRevokeOtherSessions,
  useRevokeSession,
  useUpdateName,
} from './account.mutations.ts';
import { describeUserAgent, sessionsQuery } from './account.queries.ts';
import { PasskeysPanel } from './passkeys-panel.tsx';
import { TwoFactorPanel } from './two-factor-panel.tsx';

/**
 * `/dashboard/profile` ("My profile"): name, email, password, two-factor, passkeys, signed-in sessions, account
 * deletion.
 */
export function ProfileScreen() {
  const session = useSession();
  if (!session.data) return null; // the dashboard guard only renders screens with a session
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">My profile</h1>
      <ProfileDetails session={session.data} />
      <ChangePassword />
      <TwoFactorPanel enabled={session.data.user.twoFactorEnabled === true} email={session.data.user.email} />
      <PasskeysPanel />
      <Sessions currentToken={session.data.session.token} />
      <DeleteAccount email={session.data.user.email} />
    </div>
  );
}

function ProfileDetails({ session }: { session: SessionData }) {
  const form = useForm<UpdateProfileRequest>({
    resolver: zodResolver(UpdateProfileRequestSchema),
    defaultValues: { name: session.user.name },
  });
  const update = useUpdateName({ onSuccess: (_data, values) => form.reset(values) });
  return (
    <Panel title="Profile">
      <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => update.mutate(v))}>
        <TextField label="Name" autoComplete="name" {...fieldOf(form, 'name')} />
        <dl className="flex flex-col gap-1.5">
          <dt className="text-sm font-medium">Email</dt>
          <dd className="text-sm break-all">
            {session.user.email}{' '}
            <span className="text-zinc-600 dark:text-zinc-400">
              ({session.user.emailVerified ? 'verified' : 'not verified'})
            </span>
          </dd>
        </dl>
        <div>
          <SubmitButton pending={update.isPending} pendingLabel="Saving…" disabled={!form.formState.isDirty}>
            Save name
          </SubmitButton>
        </div>
      </form>
    </Panel>
  );
}

function ChangePassword() {
  const form = useForm<ChangePasswordRequest>({
    resolver: zodResolver(ChangePasswordRequestSchema),
    defaultValues: { currentPassword: '', newPassword: '' },
  });
  const change = useChangePassword({ onSuccess: () => form.reset() });
  return (
    <Panel title="Password" description="Changing it signs you out of every other session.">
      <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => change.mutate(v))}>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...fieldOf(form, 'currentPassword')}
        />
        <TextField label="New password" type="password" autoComplete="new-password" {...fieldOf(form, 'newPassword')} />
        <div>
          <SubmitButton pending={change.isPending} pendingLabel="Changing…">
            Change password
          </SubmitButton>
        </div>
      </form>
    </Panel>
  );
}

function Sessions({ currentToken }: { currentToken: string | undefined }) {
  const services = useServices();
  const sessions = useQuery(sessionsQuery(services));
  const revokeOne = useRevokeSession();
  const revokeOthers = useRevokeOtherSessions();
  const navigate = useNavigate();
  // This session ends too: back to the sign-in page.
  const revokeAll = useRevokeAllSessions({ onSuccess: () => navigate('/login', { replace: true }) });
  const rows = sessions.data ?? [];
  const others = rows.filter((s) => s.token !== currentToken);
  return (
    <Panel title="Sessions" description="Where you are signed in. Signing a session out ends it at once.">
      {sessions.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : sessions.isError ? (
        <Notice tone="error">Your sessions could not be loaded.</Notice>
      ) : (
        <ul aria-label="Your sessions" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {rows.map((row) => {
            const current = row.token === currentToken;
            return (
              <li key={row.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
                <div className="flex min-w-0 flex-col gap-0.5 text-sm">
                  <span className="font-medium" title={row.userAgent ?? undefined}>
                    {describeUserAgent(row.userAgent)}
                    {current ? (
                      <span className="ml-2 rounded bg-brand-50 px-1.5 py-0.5 text-xs font-semibold text-brand-700 dark:bg-zinc-800 dark:text-zinc-100">
                        This device
                      </span>
                    ) : null}
                  </span>
                  <span className="text-zinc-600 dark:text-zinc-400">
                    IP {row.ipAddress || 'unknown'} · signed in {formatDateTime(row.createdAt)} · last active{' '}
                    {formatDateTime(row.updatedAt ?? row.createdAt)}
                  </span>
                </div>
                {current ? null : (
                  <Button
                    variant="secondary"
                    aria-label={`Sign out ${describeUserAgent(row.userAgent)} signed in ${formatDateTime(row.createdAt)}`}
                    disabled={revokeOne.isPending}
                    onClick={() => revokeOne.mutate(row.token)}
                  >
                    Sign out
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="secondary"
          disabled={revokeOthers.isPending || others.length === 0}
          onClick={() => revokeOthers.mutate()}
        >
          {revokeOthers.isPending ? 'Signing out…' : 'Sign out of all other sessions'}
        </Button>
        <Button variant="secondary" disabled={revokeAll.isPending} onClick={() => revokeAll.mutate()}>
          {revokeAll.isPending ? 'Signing out…' : 'Sign out everywhere'}
        </Button>
      </div>
    </Panel>
  );
}

const DELETE_CONFIRMATION = 'delete my account';

function DeleteAccount({ email }: { email: string }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const remove = useDeleteAccount({
    onSuccess: () => navigate('/', { replace: true }),
    onSettled: () => setPassword(''),
  });
  return (
    <Panel title="Delete account" tone="danger">
      <div className="flex flex-col gap-2 text-sm text-zinc-700 dark:text-zinc-300">
        <p>
          Deleting your account signs you out everywhere and removes your sign-in, your sessions and your memberships.
          It cannot be undone.
        </p>
        <p>
          <strong>Organizations are not deleted with your account</strong>, nor their forms, submissions or API keys. If
          you are the only owner of an organization, first make another member owner or delete the organization on its
          Organization page; otherwise it is left without an owner.
        </p>
      </div>
      <div>
        <ConfirmDialog
          trigger="Delete my account"
          title="Delete your account?"
          description={<p>This deletes the account {email} for good. Organizations you belong to stay.</p>}
          confirmLabel={remove.isPending ? 'Deleting…' : 'Delete my account'}
          typeToConfirm={DELETE_CONFIRMATION}
          pending={remove.isPending || password.length === 0}
          onConfirm={() => remove.mutate(password)}
        >
          <TextField
            label="Your password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </ConfirmDialog>
      </div>
    </Panel>
  );
}
