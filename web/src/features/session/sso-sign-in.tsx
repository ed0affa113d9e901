import { SignInRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useLocation, useSearchParams } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { Button, Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { SSO_ERROR_PARAM, ssoErrorPath, ssoReturnError, ssoStartError } from '../../lib/single-sign-on.ts';
import { useSignInWithSso } from './session.mutations.ts';

const WorkEmailSchema = SignInRequestSchema.pick({ email: true });

/**
 * "Sign in with SSO", below the other ways in: the work address's domain names the organization's identity
 * provider, the browser goes there and comes back to `redirectTo` signed in. Folded until asked for (the screen has
 * an "Email" field already); open at once after a failed return from the provider (`?sso_error`, back on this very
 * address), which it says above the field.
 */
export function SsoSignIn({ redirectTo }: { redirectTo: string }) {
  const [params] = useSearchParams();
  const location = useLocation();
  const returnedWithError = params.has(SSO_ERROR_PARAM);
  const [open, setOpen] = useState(returnedWithError);
  const form = useForm({ resolver: zodResolver(WorkEmailSchema), defaultValues: { email: '' } });
  const signIn = useSignInWithSso();
  if (!open)
    return (
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Sign in with SSO
      </Button>
    );
  // On its way to the provider: the button stays busy until the page is gone.
  const leaving = signIn.isPending || signIn.isSuccess;
  return (
    <form
      noValidate
      aria-label="Sign in with SSO"
      className="flex flex-col gap-4"
      onSubmit={form.handleSubmit(({ email }) =>
        signIn.mutate({
          email,
          callbackURL: redirectTo,
          errorCallbackURL: ssoErrorPath(location.pathname + location.search),
        }),
      )}
    >
      {returnedWithError && !signIn.error && !leaving ? (
        <Notice tone="error">{ssoReturnError(params.get('error'))}</Notice>
      ) : null}
      <TextField
        label="Work email"
        type="email"
        autoComplete="email"
        autoFocus={!returnedWithError}
        hint="Your organization's identity provider signs you in."
        {...fieldOf(form, 'email')}
      />
      {signIn.error ? <Notice tone="error">{ssoStartError(signIn.error, 'domain')}</Notice> : null}
      <SubmitButton variant="secondary" pending={leaving} pendingLabel="Taking you to your identity provider…">
        Sign in with SSO
      </SubmitButton>
    </form>
  );
}
