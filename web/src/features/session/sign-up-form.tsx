import { type SignUpRequest, SignUpRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { TextField } from '../../components/ui.tsx';
import { AuthForm, NewPasswordField } from './auth-form.tsx';
import { useSignUp } from './session.mutations.ts';

/** Creates the account; the verification link lands on `/verify-email`, which signs the user in. */
export function SignUpForm({ email = '' }: { email?: string }) {
  const navigate = useNavigate();
  const form = useForm<SignUpRequest>({ resolver: zodResolver(SignUpRequestSchema), defaultValues: { email } });
  const signUp = useSignUp({
    onSuccess: (_data, values) => navigate(`/check-email?email=${encodeURIComponent(values.email)}`),
  });
  return (
    <AuthForm form={form} mutation={signUp} submit="Create account" pending="Creating your account…">
      <TextField label="Name" autoComplete="name" {...fieldOf(form, 'name')} />
      <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
      <NewPasswordField label="Password" {...fieldOf(form, 'password')} />
    </AuthForm>
  );
}
