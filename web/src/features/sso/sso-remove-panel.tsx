import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError, isApiError } from '../../lib/api.ts';
import type { FullOrganization } from '../session/session.queries.ts';
import { useRemoveSsoProvider } from './sso.mutations.ts';
import type { SsoProvider } from './sso.queries.ts';

/** Why the provider was not removed: while members must sign in through it, the requirement goes first. */
function removeError(err: unknown): string {
  if (isApiError(err) && err.code === 'SSO_REQUIRED_BY_ORGANIZATION')
    return 'Members must sign in with single sign-on: turn that off first, or they could not sign in at all.';
  return describeError(err);
}

/** Removes the identity provider, after a confirmation; another one can be connected afterwards. */
export function SsoRemovePanel({ organization, provider }: { organization: FullOrganization; provider: SsoProvider }) {
  const remove = useRemoveSsoProvider(provider.providerId);
  return (
    <Panel title="Remove the identity provider" tone="danger">
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Nobody can sign in through it any more. The people it brought in stay members of the organization.
      </p>
      {remove.error ? <Notice tone="error">{removeError(remove.error)}</Notice> : null}
      <div>
        <ConfirmDialog
          trigger="Remove provider"
          title="Remove the identity provider?"
          description={
            <p>
              Nobody will be able to sign in to {organization.name} through {provider.issuer}. You can connect a
              provider again later, and verify its domain again.
            </p>
          }
          confirmLabel={remove.isPending ? 'Removing…' : 'Remove provider'}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
    </Panel>
  );
}
