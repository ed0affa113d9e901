import type { ComponentProps, ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';

/**
 * The form of a sign-in, sign-up or password screen: its heading and fields (`children`), then the request's error
 * (`error`, by default its message; `null` when a toast says it), the submit button (saying `pending` while the
 * request runs) and a link below.
 */
export function AuthForm<T extends FieldValues>(props: {
  form: UseFormReturn<T>;
  mutation: { mutate: (values: T) => void; isPending: boolean; error: Error | null };
  submit: string;
  pending: string;
  error?: ReactNode;
  link?: { to: string; label: string };
  children: ReactNode;
}) {
  const { mutation } = props;
  const error = props.error === undefined ? mutation.error?.message : props.error;
  return (
    <form noValidate className="flex flex-col gap-4" onSubmit={props.form.handleSubmit((v) => mutation.mutate(v))}>
      {props.children}
      {error ? <Notice tone="error">{error}</Notice> : null}
      <SubmitButton pending={mutation.isPending} pendingLabel={props.pending}>
        {props.submit}
      </SubmitButton>
      {props.link ? (
        <Link to={props.link.to} className="text-sm text-brand-600 underline dark:text-brand-50">
          {props.link.label}
        </Link>
      ) : null}
    </form>
  );
}

/** A new password (sign-up, reset), with the rule it must meet. */
export function NewPasswordField(props: Omit<ComponentProps<typeof TextField>, 'type' | 'autoComplete' | 'hint'>) {
  return <TextField type="password" autoComplete="new-password" hint="At least 10 characters." {...props} />;
}
