import { useEffect, useId, useState } from 'react';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { useRequireTwoFactor } from './organization.mutations.ts';

/** "Security": whether the organization's members must use two-factor authentication (saved as it is switched). */
export function OrganizationSecurity({ organization: org }: { organization: FullOrganization }) {
  const id = useId();
  const update = useRequireTwoFactor(org.id);
  const saved = org.requireTwoFactor === true;
  // The box shows the click at once, and keeps showing it until the organization read back says the same (or the
  // save fails): a controlled checkbox would otherwise flick back while the save is on its way.
  const [clicked, setClicked] = useState<boolean | null>(null);
  useEffect(() => {
    if (clicked === saved) setClicked(null);
  }, [clicked, saved]);
  const required = clicked ?? saved;
  return (
    <Panel title="Security">
      <div className="flex items-start gap-3 text-sm">
        <input
          id={id}
          type="checkbox"
          className="mt-0.5 size-4"
          checked={required}
          disabled={update.isPending}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setClicked(e.target.checked);
            update.mutate(e.target.checked, { onError: () => setClicked(null) });
          }}
        />
        <div className="flex flex-col gap-0.5">
          <label htmlFor={id} className="font-medium">
            Members must use two-factor authentication
          </label>
          <p id={`${id}-hint`} className="text-zinc-600 dark:text-zinc-400">
            Members without it can only reach their profile until they set it up. API keys are not affected.
          </p>
        </div>
      </div>
      {update.isError ? <Notice tone="error">{describeError(update.error)}</Notice> : null}
    </Panel>
  );
}
