import { useNavigate } from 'react-router';
import { Button, Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { useSignInWithPasskey } from './session.mutations.ts';

/**
 * "Sign in with a passkey", below the password form: the browser's passkey prompt, then on to `redirectTo` as after
 * a password (a passkey needs no second step). What went wrong is said above the button.
 */
export function PasskeySignIn({ redirectTo }: { redirectTo: string }) {
  const navigate = useNavigate();
  const signIn = useSignInWithPasskey({ onSuccess: () => navigate(redirectTo, { replace: true }) });
  return (
    <div className="flex flex-col gap-4">
      <div aria-hidden="true" className="flex items-center gap-3 text-sm text-zinc-600 dark:text-zinc-400">
        <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
        or
        <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
      </div>
      {signIn.error ? <Notice tone="error">{describeError(signIn.error)}</Notice> : null}
      <Button variant="secondary" disabled={signIn.isPending} onClick={() => signIn.mutate()}>
        {signIn.isPending ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </Button>
    </div>
  );
}
