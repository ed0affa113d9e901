import { type SignInRequest, SignInRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { TextField } from '../../components/ui.tsx';
import { isApiError } from '../../lib/api.ts';
import { AuthForm } from './auth-form.tsx';
import { PasskeySignIn } from './passkey-sign-in.tsx';
import { needsSecondFactor, useSignIn } from './session.mutations.ts';
import { SsoSignIn } from './sso-sign-in.tsx';

/** The second step of a sign-in with two-factor, keeping where the user goes after it. */
const twoFactorPath = (redirectTo: string) => `/login/two-factor?redirect=${encodeURIComponent(redirectTo)}`;

/**
 * Email and password; a signed-in user goes to `redirectTo`, one with two-factor first to the code screen. An
 * unverified address gets a new link by email. Below, the sign-in with a passkey (no password) and with the
 * organization's identity provider (single sign-on), to `redirectTo` too.
 */
export function SignInForm({ email = '', redirectTo }: { email?: string; redirectTo: string }) {
  const navigate = useNavigate();
  const form = useForm<SignInRequest>({ resolver: zodResolver(SignInRequestSchema), defaultValues: { email } });
  const signIn = useSignIn({
    onSuccess: (data) =>
      needsSecondFactor(data) ? navigate(twoFactorPath(redirectTo)) : navigate(redirectTo, { replace: true }),
  });
  const unverified = isApiError(signIn.error) && signIn.error.code === 'EMAIL_NOT_VERIFIED';
  return (
    <>
      <AuthForm
        form={form}
        mutation={signIn}
        submit="Sign in"
        pending="Signing in…"
        error={unverified ? 'Verify your email first: we sent you a new link.' : signIn.error?.message}
        link={{ to: '/forgot-password', label: 'Forgot your password?' }}
      >
        <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          autoFocus={email !== ''}
          {...fieldOf(form, 'password')}
        />
      </AuthForm>
      <PasskeySignIn redirectTo={redirectTo} />
      <SsoSignIn redirectTo={redirectTo} />
    </>
  );
}
