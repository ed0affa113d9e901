import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { toast } from 'sonner';
import { ConfirmDialog, Panel } from '../../../components/panel.tsx';
import { Notice } from '../../../components/ui.tsx';
import { organizationKeys, orgSettingsQuery } from '../../../features/organization/organization.queries.ts';
import { useCan } from '../../../features/organization/use-can.ts';
import { apiFetch } from '../../../lib/api.ts';
import { EmailsGate, NOT_YET_SENT } from './emails-gate.tsx';

/** `/dashboard/emails`: the address that receives the organization's submission notifications (org settings). */
export function Component() {
  return (
    <EmailsGate>
      <EmailsIndex />
    </EmailsGate>
  );
}

function EmailsIndex() {
  const queryClient = useQueryClient();
  const settings = useQuery(orgSettingsQuery());
  const { can } = useCan();
  const canEdit = can({ organization: ['update'] });
  const clear = useMutation({
    mutationFn: () =>
      apiFetch('/api/v1/orgs/settings', { method: 'PATCH', json: { submission_notification_email: null } }),
    onSuccess: async () => {
      toast.success('Notification email removed');
      await queryClient.invalidateQueries({ queryKey: organizationKeys.settings });
    },
  });
  const email = settings.data?.submission_notification_email ?? null;
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Emails</h1>
        {canEdit ? (
          <Link
            to="/dashboard/emails/create"
            className="rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            {email ? 'Change email' : 'Add email'}
          </Link>
        ) : null}
      </div>
      <Panel title="Submission notifications" description="The address told about every new submission.">
        {settings.isPending ? (
          <p className="text-sm">Loading…</p>
        ) : settings.isError ? (
          <Notice tone="error">The organization's settings could not be loaded.</Notice>
        ) : email ? (
          <ul aria-label="Notification emails" className="flex flex-col">
            <li className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
              <span className="font-medium break-all">{email}</span>
              {canEdit ? (
                <ConfirmDialog
                  trigger="Remove"
                  triggerVariant="secondary"
                  triggerLabel={`Remove ${email}`}
                  title={`Remove ${email}?`}
                  description={<p>Nobody will be told about new submissions by email.</p>}
                  confirmLabel="Remove email"
                  pending={clear.isPending}
                  onConfirm={() => clear.mutate()}
                />
              ) : null}
            </li>
          </ul>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">No notification email yet.</p>
        )}
        <Notice>{NOT_YET_SENT}</Notice>
      </Panel>
    </div>
  );
}
