import { SignUpRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { AuthForm, NewPasswordField } from './auth-form.tsx';
import { useResetPassword } from './session.mutations.ts';

const ResetSchema = z.object({ newPassword: SignUpRequestSchema.shape.password });

/** The reset link lands here with `?token=` (or `?error=` when it expired); sessions are revoked on reset. */
export function ResetPasswordScreen() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const form = useForm<z.infer<typeof ResetSchema>>({ resolver: zodResolver(ResetSchema) });
  const reset = useResetPassword(token ?? '');
  if (!token || params.get('error'))
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-xl font-semibold">This link did not work</h1>
        <p>It may have expired. Ask for a new one.</p>
        <Link to="/forgot-password" className="text-brand-600 underline dark:text-brand-50">
          Reset your password
        </Link>
      </div>
    );
  if (reset.isSuccess)
    return (
      <div className="flex flex-col gap-4" role="status">
        <h1 className="text-xl font-semibold">Password changed</h1>
        <Link to="/login" className="text-brand-600 underline dark:text-brand-50">
          Sign in with your new password
        </Link>
      </div>
    );
  return (
    <AuthForm form={form} mutation={reset} submit="Save the password" pending="Saving…" error={null}>
      <h1 className="text-xl font-semibold">Choose a new password</h1>
      <NewPasswordField label="New password" {...fieldOf(form, 'newPassword')} />
    </AuthForm>
  );
}
