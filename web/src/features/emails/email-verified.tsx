import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { EmailsGate } from './emails-gate.tsx';
import { notificationEmailsQuery } from './notification-emails.queries.ts';

/**
 * `/dashboard/emails/verification-success/{email}`: where a verification link lands once the server has verified
 * the address. The page confirms it from the list rather than from the URL alone.
 */
export function EmailVerifiedScreen() {
  return (
    <EmailsGate>
      <EmailVerified />
    </EmailsGate>
  );
}

function EmailVerified() {
  const { email = '' } = useParams();
  const emails = useQuery(notificationEmailsQuery());
  const item = emails.data?.find((e) => e.email === email.toLowerCase());
  return (
    <div className="flex max-w-xl flex-col gap-4">
      <h1 className="text-2xl font-semibold break-all">{email}</h1>
      {emails.isPending ? (
        <p>Loading…</p>
      ) : item?.verified ? (
        <Notice>Email verified. This address can now receive your forms' submission notifications.</Notice>
      ) : (
        <Notice tone="error">This address is not a verified notification email of this organization.</Notice>
      )}
      <Link to="/dashboard/emails" className="text-sm text-brand-600 underline dark:text-brand-50">
        Back to emails
      </Link>
    </div>
  );
}
