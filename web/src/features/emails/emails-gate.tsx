import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { flagQuery } from '../flags/flags.queries.ts';

/** The Emails screens exist only while the organization's `emailManagement` flag is on. */
export function EmailsGate({ children }: { children: ReactNode }) {
  const flag = useQuery(flagQuery('emailManagement'));
  if (flag.isPending) return <p>Loading…</p>;
  if (flag.data !== true)
    return (
      <div className="flex max-w-3xl flex-col gap-4">
        <h1 className="text-2xl font-semibold">Emails</h1>
        <Notice>
          Email management is off for this organization. An owner or admin can turn it on in{' '}
          <Link to="/dashboard/organization" className="underline">
            the organization's settings
          </Link>
          .
        </Notice>
      </div>
    );
  return children;
}
