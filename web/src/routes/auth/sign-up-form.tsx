import { type SignUpRequest, SignUpRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useSignUp } from '../../features/session/session.mutations.ts';

/** Creates the account; the verification link lands on `/verify-email`, which signs the user in. */
export function SignUpForm({ email = '' }: { email?: string }) {
  const navigate = useNavigate();
  const form = useForm<SignUpRequest>({ resolver: zodResolver(SignUpRequestSchema), defaultValues: { email } });
  const signUp = useSignUp({
    onSuccess: (_data, values) => navigate(`/check-email?email=${encodeURIComponent(values.email)}`),
  });
  return (
    <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => signUp.mutate(v))}>
      <TextField label="Name" autoComplete="name" {...fieldOf(form, 'name')} />
      <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
      <TextField
        label="Password"
        type="password"
        autoComplete="new-password"
        hint="At least 10 characters."
        {...fieldOf(form, 'password')}
      />
      {signUp.error ? <Notice tone="error">{signUp.error.message}</Notice> : null}
      <SubmitButton pending={signUp.isPending} pendingLabel="Creating your account…">
        Create account
      </SubmitButton>
    </form>
  );
}
