import { type NotificationEmailRequest, NotificationEmailRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { Panel } from '../../components/panel.tsx';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useCan } from '../organization/use-can.ts';
import { EmailsGate } from './emails-gate.tsx';
import { useAddNotificationEmail } from './notification-emails.mutations.ts';

/** `/dashboard/emails/create`: adds a notification address; it is mailed a verification link. */
export function EmailCreateScreen() {
  return (
    <EmailsGate>
      <CreateEmail />
    </EmailsGate>
  );
}

function CreateEmail() {
  const navigate = useNavigate();
  const { can, isPending } = useCan();
  const form = useForm<NotificationEmailRequest>({
    resolver: zodResolver(NotificationEmailRequestSchema),
    defaultValues: { email: '' },
  });
  const add = useAddNotificationEmail({ onSuccess: () => navigate('/dashboard/emails') });
  return (
    <div className="flex max-w-xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Add an email</h1>
      {isPending ? null : can({ organization: ['update'] }) ? (
        <Panel
          title="Notification email"
          description="We send this address a link to confirm it; it receives submissions once confirmed. Your own sign-in address is confirmed at once."
        >
          <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => add.mutate(v.email))}>
            <TextField label="Email address" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
            <div className="flex flex-wrap gap-2">
              <SubmitButton pending={add.isPending} pendingLabel="Adding…">
                Add email
              </SubmitButton>
              <Link
                to="/dashboard/emails"
                className="rounded-md px-3.5 py-2 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                Cancel
              </Link>
            </div>
          </form>
        </Panel>
      ) : (
        <Notice>Only an owner or admin of the organization can add notification emails.</Notice>
      )}
    </div>
  );
}
