import { useId } from 'react';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { useRequireTwoFactor } from './organization.mutations.ts';

/** "Security": whether the organization's members must use two-factor authentication (saved as it is switched). */
export function OrganizationSecurity({ organization: org }: { organization: FullOrganization }) {
  const id = useId();
  const update = useRequireTwoFactor(org.id);
  const required = update.isPending ? update.variables : org.requireTwoFactor === true;
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
          onChange={(e) => update.mutate(e.target.checked)}
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
