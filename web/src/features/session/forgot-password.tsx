import { SignInRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { TextField } from '../../components/ui.tsx';
import { AuthForm } from './auth-form.tsx';
import { useRequestPasswordReset } from './session.mutations.ts';

const BACK_TO_SIGN_IN = { to: '/login', label: 'Back to sign in' };
const RequestSchema = SignInRequestSchema.pick({ email: true });

/** Asks for a reset link; the answer is the same whether or not the address has an account. */
export function ForgotPasswordScreen() {
  const form = useForm<z.infer<typeof RequestSchema>>({ resolver: zodResolver(RequestSchema) });
  const request = useRequestPasswordReset();
  if (request.isSuccess)
    return (
      <div className="flex flex-col gap-4" role="status">
        <h1 className="text-xl font-semibold">Check your email</h1>
        <p>If an account uses that address, a link to choose a new password is on its way.</p>
      </div>
    );
  return (
    <AuthForm form={form} mutation={request} submit="Send the link" pending="Sending…" link={BACK_TO_SIGN_IN}>
      <h1 className="text-xl font-semibold">Reset your password</h1>
      <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
    </AuthForm>
  );
}
