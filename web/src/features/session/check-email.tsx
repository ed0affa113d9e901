import { Link, useSearchParams } from 'react-router';
import { Button } from '../../components/ui.tsx';
import { useResendVerification } from './session.mutations.ts';

/** After sign-up: the verification link is on its way; it can be sent again. */
export function CheckEmailScreen() {
  const email = useSearchParams()[0].get('email') ?? '';
  const resend = useResendVerification(email);
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Check your email</h1>
      <p>
        We sent a verification link to <strong>{email || 'your address'}</strong>. Open it to finish creating your
        account.
      </p>
      {email ? (
        <Button variant="secondary" disabled={resend.isPending || resend.isSuccess} onClick={() => resend.mutate()}>
          {resend.isSuccess ? 'Sent again' : resend.isPending ? 'Sending…' : 'Send the link again'}
        </Button>
      ) : null}
      <Link to="/login" className="text-sm text-brand-600 underline dark:text-brand-50">
        Back to sign in
      </Link>
    </div>
  );
}
