import { SignInRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useRequestPasswordReset } from '../../features/session/session.mutations.ts';

const RequestSchema = SignInRequestSchema.pick({ email: true });

/** Asks for a reset link; the answer is the same whether or not the address has an account. */
export function Component() {
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
    <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => request.mutate(v))}>
      <h1 className="text-xl font-semibold">Reset your password</h1>
      <TextField label="Email" type="email" autoComplete="email" {...fieldOf(form, 'email')} />
      {request.error ? <Notice tone="error">{request.error.message}</Notice> : null}
      <SubmitButton pending={request.isPending} pendingLabel="Sending…">
        Send the link
      </SubmitButton>
      <Link to="/login" className="text-sm text-brand-600 underline dark:text-brand-50">
        Back to sign in
      </Link>
    </form>
  );
}
