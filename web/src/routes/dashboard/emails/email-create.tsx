import { type NotificationEmailRequest, NotificationEmailRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { toast } from 'sonner';
import { Panel } from '../../../components/panel.tsx';
import { Button, Notice, TextField } from '../../../components/ui.tsx';
import { organizationKeys } from '../../../features/organization/organization.queries.ts';
import { useCan } from '../../../features/organization/use-can.ts';
import { apiFetch } from '../../../lib/api.ts';
import { EmailsGate, NOT_YET_SENT } from './emails-gate.tsx';

/** `/dashboard/emails/create`: sets the organization's submission notification email. */
export function Component() {
  return (
    <EmailsGate>
      <CreateEmail />
    </EmailsGate>
  );
}

function CreateEmail() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { can, isPending } = useCan();
  const form = useForm<NotificationEmailRequest>({
    resolver: zodResolver(NotificationEmailRequestSchema),
    defaultValues: { email: '' },
  });
  const save = useMutation({
    mutationFn: ({ email }: NotificationEmailRequest) =>
      apiFetch('/api/v1/orgs/settings', { method: 'PATCH', json: { submission_notification_email: email } }),
    onSuccess: async () => {
      toast.success('Notification email saved');
      await queryClient.invalidateQueries({ queryKey: organizationKeys.settings });
      navigate('/dashboard/emails');
    },
  });
  return (
    <div className="flex max-w-xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Add an email</h1>
      {isPending ? null : can({ organization: ['update'] }) ? (
        <Panel title="Notification email" description="It replaces the organization's current notification email.">
          <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
            <TextField
              label="Email address"
              type="email"
              autoComplete="email"
              error={form.formState.errors.email?.message}
              {...form.register('email')}
            />
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={save.isPending}>
                {save.isPending ? 'Saving…' : 'Save email'}
              </Button>
              <Link
                to="/dashboard/emails"
                className="rounded-md px-3.5 py-2 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                Cancel
              </Link>
            </div>
          </form>
          <Notice>{NOT_YET_SENT}</Notice>
        </Panel>
      ) : (
        <Notice>Only an owner or admin of the organization can change its notification email.</Notice>
      )}
    </div>
  );
}
