import { useEffect, useId, useState } from 'react';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { useCan } from '../organization/use-can.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { useSession } from '../session/use-session.ts';
import { useRequireSso } from './sso.mutations.ts';

/**
 * "Members must sign in with single sign-on" (saved as it is switched), open once the provider's domain is verified.
 * An admin who did not come through the provider is warned that it applies to them too; owners are exempt.
 */
export function SsoRequirementPanel({
  organization: org,
  verified,
}: {
  organization: FullOrganization;
  verified: boolean;
}) {
  const id = useId();
  const update = useRequireSso(org.id);
  const session = useSession();
  const { role } = useCan();
  const saved = org.requireSso === true;
  // The box shows the click at once, and keeps showing it until the organization read back says the same (or the
  // save fails): a controlled checkbox would otherwise flick back while the save is on its way.
  const [clicked, setClicked] = useState<boolean | null>(null);
  useEffect(() => {
    if (clicked === saved) setClicked(null);
  }, [clicked, saved]);
  const required = clicked ?? saved;
  const owner = role?.split(',').some((r) => r.trim() === 'owner') ?? false;
  const cameThroughProvider = session.data?.session.ssoOrganizationId === org.id;
  return (
    <Panel title="Require single sign-on">
      <div className="flex items-start gap-3 text-sm">
        <input
          id={id}
          type="checkbox"
          className="mt-0.5 size-4"
          checked={required}
          disabled={update.isPending || (!verified && !saved)}
          aria-describedby={`${id}-hint`}
          onChange={(e) => {
            setClicked(e.target.checked);
            update.mutate(e.target.checked, { onError: () => setClicked(null) });
          }}
        />
        <div className="flex flex-col gap-0.5">
          <label htmlFor={id} className="font-medium">
            Members must sign in with single sign-on
          </label>
          <div id={`${id}-hint`} className="flex flex-col gap-1 text-zinc-600 dark:text-zinc-400">
            {verified ? null : <p>Verify the domain first.</p>}
            <p>
              Members who signed in another way can reach only their profile until they sign in through the identity
              provider. Owners are exempt, so that the organization stays reachable if the provider is down. API keys
              are not affected.
            </p>
            {role !== null && !owner && !cameThroughProvider ? (
              <p>You did not sign in through the identity provider: once this is on, you will have to as well.</p>
            ) : null}
          </div>
        </div>
      </div>
      {update.isError ? <Notice tone="error">{describeError(update.error)}</Notice> : null}
    </Panel>
  );
}
