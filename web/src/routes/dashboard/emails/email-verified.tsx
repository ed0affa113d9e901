import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Notice } from '../../../components/ui.tsx';
import { orgSettingsQuery } from '../../../features/organization/organization.queries.ts';
import { EmailsGate } from './emails-gate.tsx';

/**
 * `/dashboard/emails/verification-success/{email}`: where a recipient verification link will land. Recipients are
 * not verified yet, so the page says what it knows and claims nothing more.
 */
export function Component() {
  return (
    <EmailsGate>
      <EmailVerified />
    </EmailsGate>
  );
}

function EmailVerified() {
  const { email = '' } = useParams();
  const settings = useQuery(orgSettingsQuery());
  const current = settings.data?.submission_notification_email;
  return (
    <div className="flex max-w-xl flex-col gap-4">
      <h1 className="text-2xl font-semibold break-all">{email}</h1>
      {settings.data ? (
        <p>
          {current?.toLowerCase() === email.toLowerCase()
            ? "This address receives the organization's submission notifications."
            : "This address is not the organization's notification email."}
        </p>
      ) : null}
      <Notice>
        Verification links for notification emails are not sent yet, so nothing was verified here. This page is where
        they will land.
      </Notice>
      <Link to="/dashboard/emails" className="text-sm text-brand-600 underline dark:text-brand-50">
        Back to emails
      </Link>
    </div>
  );
}
