import { type BackupCodeRequest, BackupCodeSchema, type TotpCodeRequest, TotpCodeSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { type ReactNode, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { fieldOf } from '../../components/form-field.ts';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { CheckboxField, TextField } from '../../components/ui.tsx';
import { describeError, isApiError } from '../../lib/api.ts';
import { AuthForm } from './auth-form.tsx';
import { useVerifyBackupCode, useVerifyTotp } from './session.mutations.ts';
import { safeRedirect, useSession } from './use-session.ts';

const LINK = 'text-brand-600 underline dark:text-brand-50';

/**
 * `/login/two-factor?redirect=`: the second step of a sign-in with two-factor (after the password), with a code from
 * the authenticator app or a backup code; then on to `redirect` (a local path). A signed-in visitor goes there at once.
 */
export function TwoFactorScreen() {
  const session = useSession();
  const [params] = useSearchParams();
  const [useBackupCode, setUseBackupCode] = useState(false);
  const redirectTo = safeRedirect(params.get('redirect'));
  const signInAgain = `/login?redirect=${encodeURIComponent(redirectTo)}`;
  if (session.isPending) return <LoadingShell />;
  if (session.data) return <Navigate to={redirectTo} replace />;
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">Two-factor authentication</h1>
      {useBackupCode ? (
        <BackupCodeForm redirectTo={redirectTo} signInAgain={signInAgain} />
      ) : (
        <TotpForm redirectTo={redirectTo} signInAgain={signInAgain} />
      )}
      <button type="button" className={`self-start text-sm ${LINK}`} onClick={() => setUseBackupCode(!useBackupCode)}>
        {useBackupCode ? 'Use your authenticator app instead' : 'Use a backup code instead'}
      </button>
      <p className="text-sm">
        Not you?{' '}
        <Link to={signInAgain} className={LINK}>
          Sign in with another account
        </Link>
      </p>
    </div>
  );
}

interface StepProps {
  redirectTo: string;
  /** The password step again, for a challenge that expired or was spent. */
  signInAgain: string;
}

function TotpForm({ redirectTo, signInAgain }: StepProps) {
  const navigate = useNavigate();
  const form = useForm<TotpCodeRequest>({
    resolver: zodResolver(TotpCodeSchema),
    defaultValues: { code: '', trustDevice: false },
  });
  const verify = useVerifyTotp({ onSuccess: () => navigate(redirectTo, { replace: true }) });
  return (
    <AuthForm
      form={form}
      mutation={verify}
      submit="Verify"
      pending="Verifying…"
      error={codeError(verify.error, signInAgain)}
    >
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Open your authenticator app and enter the code it shows for Formgate.
      </p>
      <TextField
        label="Authentication code"
        autoComplete="one-time-code"
        inputMode="numeric"
        autoFocus
        {...fieldOf(form, 'code')}
      />
      <CheckboxField label="Trust this device for 30 days" {...form.register('trustDevice')} />
    </AuthForm>
  );
}

function BackupCodeForm({ redirectTo, signInAgain }: StepProps) {
  const navigate = useNavigate();
  const form = useForm<BackupCodeRequest>({
    resolver: zodResolver(BackupCodeSchema),
    defaultValues: { code: '', trustDevice: false },
  });
  const verify = useVerifyBackupCode({ onSuccess: () => navigate(redirectTo, { replace: true }) });
  return (
    <AuthForm
      form={form}
      mutation={verify}
      submit="Verify"
      pending="Verifying…"
      error={codeError(verify.error, signInAgain)}
    >
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Enter one of the backup codes you saved when you set up two-factor. Each code works once.
      </p>
      <TextField label="Backup code" autoComplete="off" autoFocus {...fieldOf(form, 'code')} />
      <CheckboxField label="Trust this device for 30 days" {...form.register('trustDevice')} />
    </AuthForm>
  );
}

/** What the person reads about a refused code: what went wrong and what to do next. */
function codeError(error: Error | null, signInAgain: string): ReactNode {
  if (!error) return null;
  const again = (
    <Link to={signInAgain} className="underline">
      sign in again
    </Link>
  );
  switch (isApiError(error) ? error.code : undefined) {
    case 'INVALID_CODE':
      return 'That code is not right. Enter the code your authenticator app shows now.';
    case 'INVALID_BACKUP_CODE':
      return 'That backup code is not right, or it was already used.';
    case 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE':
      return <>Too many wrong codes for this sign-in. Please {again} with your password.</>;
    case 'INVALID_TWO_FACTOR_COOKIE':
      return <>This sign-in has expired. Please {again} with your password.</>;
    case 'ACCOUNT_TEMPORARILY_LOCKED':
      return 'Too many failed attempts: try again in 15 minutes.';
    default:
      return describeError(error);
  }
}
