import type { NotificationEmailDto } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { useCan } from '../organization/use-can.ts';
import { EmailsGate } from './emails-gate.tsx';
import { useAddNotificationEmail, useRemoveNotificationEmail } from './notification-emails.mutations.ts';
import { notificationEmailsQuery } from './notification-emails.queries.ts';

/** `/dashboard/emails`: the organization's notification addresses, verified or waiting for confirmation. */
export function EmailsIndexScreen() {
  return (
    <EmailsGate>
      <EmailsIndex />
    </EmailsGate>
  );
}

function EmailsIndex() {
  const emails = useQuery(notificationEmailsQuery());
  const [params] = useSearchParams();
  const { can } = useCan();
  const canEdit = can({ organization: ['update'] });
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Emails</h1>
        {canEdit ? (
          <Link
            to="/dashboard/emails/create"
            className="rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            Add email
          </Link>
        ) : null}
      </div>
      {params.get('verification') === 'invalid' ? (
        <Notice tone="error">
          That verification link is invalid or has expired (links work for 24 hours). Send a new one with "Resend
          verification" below.
        </Notice>
      ) : null}
      <Panel
        title="Notification emails"
        description="Addresses that can receive your forms' submissions. Each one is confirmed by a link we email to it; choose which ones each form notifies in the form's settings."
      >
        {emails.isPending ? (
          <p className="text-sm">Loading…</p>
        ) : emails.isError ? (
          <Notice tone="error">The notification emails could not be loaded.</Notice>
        ) : emails.data.length > 0 ? (
          <ul aria-label="Notification emails" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
            {emails.data.map((item) => (
              <EmailRow key={item.id} item={item} canEdit={canEdit} />
            ))}
          </ul>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No notification email yet.</p>
        )}
      </Panel>
    </div>
  );
}

function EmailRow({ item, canEdit }: { item: NotificationEmailDto; canEdit: boolean }) {
  const resend = useAddNotificationEmail();
  const remove = useRemoveNotificationEmail();
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <span className="font-medium break-all">{item.email}</span>
        {item.verified ? (
          <span className="rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800 dark:bg-green-900/40 dark:text-green-200">
            Verified
          </span>
        ) : (
          <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-900/40 dark:text-amber-200">
            Waiting for confirmation
          </span>
        )}
      </div>
      {canEdit ? (
        <div className="flex flex-wrap gap-2">
          {item.verified ? null : (
            <Button
              variant="secondary"
              aria-label={`Resend verification to ${item.email}`}
              disabled={resend.isPending}
              onClick={() => resend.mutate(item.email)}
            >
              {resend.isPending ? 'Sending…' : 'Resend verification'}
            </Button>
          )}
          <ConfirmDialog
            trigger="Remove"
            triggerVariant="secondary"
            triggerLabel={`Remove ${item.email}`}
            title={`Remove ${item.email}?`}
            description={<p>Forms that notify this address stop mailing it.</p>}
            confirmLabel="Remove email"
            pending={remove.isPending}
            onConfirm={() => remove.mutate(item.id)}
          />
        </div>
      ) : null}
    </li>
  );
}
