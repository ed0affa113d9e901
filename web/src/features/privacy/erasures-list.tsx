import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime, Panel } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import type { FullOrganization } from '../session/session.queries.ts';
import { StoredErasureReceipt, submissionsCount, useFormNames } from './erasure-receipt.tsx';
import { type ErasureSummary, erasuresQuery } from './privacy.queries.ts';

/** Who asked for an erasure: a member by their email when still a member, else the id the receipt gives. */
function requester(by: ErasureSummary['requestedBy'], organization: FullOrganization): string {
  if (by.via === 'api-key') return `API key ${by.id}`;
  const member = organization.members.find((m) => m.userId === by.id);
  return member ? member.user.email : `Member ${by.id}`;
}

/** The organization's past erasures, newest first; each opens its receipt (and its download). */
export function ErasuresList({ organization }: { organization: FullOrganization }) {
  const erasures = useQuery(erasuresQuery());
  const formName = useFormNames();
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Panel title="Past erasures" description="Every erasure of this organization, newest first, with its receipt.">
      {erasures.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : erasures.isError ? (
        <Notice tone="error">The erasures could not be loaded.</Notice>
      ) : erasures.data.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No erasures yet.</p>
      ) : (
        <ul aria-label="Past erasures" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {erasures.data.map((e) => (
            <li key={e.id} className="flex flex-col gap-3 py-3">
              <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
                <div className="flex min-w-0 flex-col gap-0.5 text-sm">
                  <span className="font-medium">
                    {formatDateTime(e.erasedAt)} · {submissionsCount(e.count)}
                  </span>
                  <span className="break-words text-zinc-600 dark:text-zinc-400">
                    By {requester(e.requestedBy, organization)}
                    {e.forms.length > 0 ? ` · ${e.forms.map(formName).join(', ')}` : ''}
                  </span>
                </div>
                <Button
                  variant="secondary"
                  aria-expanded={open === e.id}
                  aria-label={`${open === e.id ? 'Hide' : 'Show'} the receipt of ${formatDateTime(e.erasedAt)}`}
                  onClick={() => setOpen(open === e.id ? null : e.id)}
                >
                  {open === e.id ? 'Hide receipt' : 'Receipt'}
                </Button>
              </div>
              {open === e.id ? <StoredErasureReceipt erasureId={e.id} /> : null}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
