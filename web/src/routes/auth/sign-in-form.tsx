import { type SignInRequest, SignInRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useSignIn } from '../../features/session/session.mutations.ts';
import { isApiError } from '../../lib/api.ts';

/** Email and password; a signed-in user goes to `redirectTo`. An unverified address gets a new link by email. */
export function SignInForm({ email = '', redirectTo }: { email?: string; redirectTo: string }) {
  const navigate = useNavigate();
  const form = useForm<SignInRequest>({ resolver: zodResolver(SignInRequestSchema), defaultValues: { email } });
  const signIn = useSignIn({ onSuccess: () => navigate(redirectTo, { replace: true }) });
  const unverified = isApiError(signIn.error) && signIn.error.code === 'EMAIL_NOT_VERIFIED';
  return (
    <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => signIn.mutate(v))}>
      <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        autoFocus={email !== ''}
        {...fieldOf(form, 'password')}
      />
      {signIn.error ? (
        <Notice tone="error">
          {unverified
            ? 'Verify your email first: we sent you a new link.'
            : (signIn.error.message ?? 'Could not sign in')}
        </Notice>
      ) : null}
      <SubmitButton pending={signIn.isPending} pendingLabel="Signing in…">
        Sign in
      </SubmitButton>
      <Link to="/forgot-password" className="text-sm text-brand-600 underline dark:text-brand-50">
        Forgot your password?
      </Link>
    </form>
  );
}
