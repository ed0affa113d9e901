import { SignInRequestSchema, type TotpCodeRequest, TotpCodeSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { CopyButton } from '../../components/copy-button.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { Section } from '../../components/panel.tsx';
import { Button, SubmitButton, TextField } from '../../components/ui.tsx';
import { type TwoFactorSetup, useConfirmTwoFactor, useEnableTwoFactor } from './account.mutations.ts';
import { BackupCodes } from './backup-codes.tsx';
import { TotpQrCode } from './totp-qr-code.tsx';

const PasswordSchema = SignInRequestSchema.pick({ password: true });

/**
 * Setting two-factor up: "Set up two-factor", the password, then the QR code (and its key to type by hand), the
 * backup codes, and a first code from the app that turns it on. The URI and codes live only in this state.
 */
export function TwoFactorSetupFlow({ email }: { email: string }) {
  const [askPassword, setAskPassword] = useState(false);
  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const reset = () => {
    setSetup(null);
    setAskPassword(false);
  };
  if (setup) return <SetupSteps setup={setup} email={email} onDone={reset} />;
  if (askPassword) return <PasswordStep onStarted={setSetup} onCancel={reset} />;
  return (
    <div>
      <Button onClick={() => setAskPassword(true)}>Set up two-factor</Button>
    </div>
  );
}

function PasswordStep(props: { onStarted: (setup: TwoFactorSetup) => void; onCancel: () => void }) {
  const form = useForm<{ password: string }>({
    resolver: zodResolver(PasswordSchema),
    defaultValues: { password: '' },
  });
  const enable = useEnableTwoFactor({ onSuccess: (setup) => props.onStarted(setup) });
  return (
    <form
      noValidate
      aria-label="Confirm your password"
      className="flex flex-col gap-4"
      onSubmit={form.handleSubmit(({ password }) => enable.mutate(password))}
    >
      <TextField
        label="Your password"
        type="password"
        autoComplete="current-password"
        autoFocus
        {...fieldOf(form, 'password')}
      />
      <div className="flex flex-wrap gap-2">
        <SubmitButton pending={enable.isPending} pendingLabel="Checking…">
          Continue
        </SubmitButton>
        <Button variant="secondary" onClick={props.onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

/** The key inside an `otpauth://` URI, for typing into an app that cannot scan. */
function secretOf(uri: string): string {
  try {
    return new URL(uri).searchParams.get('secret') ?? '';
  } catch {
    return '';
  }
}

function SetupSteps({ setup, email, onDone }: { setup: TwoFactorSetup; email: string; onDone: () => void }) {
  const secret = secretOf(setup.totpURI);
  return (
    <div className="flex flex-col gap-6">
      <Section title="1. Scan the QR code with your authenticator app" level={3} className="flex flex-col gap-3">
        <TotpQrCode uri={setup.totpURI} />
        {secret ? (
          <div className="flex flex-col gap-2 text-sm">
            <p>Cannot scan it? Enter this key in the app instead:</p>
            <div className="flex flex-wrap items-center gap-2">
              <code
                data-testid="totp-secret"
                className="rounded bg-zinc-100 px-2 py-1 font-mono break-all dark:bg-zinc-800"
              >
                {secret}
              </code>
              <CopyButton text={secret} label="Copy the key" />
            </div>
          </div>
        ) : null}
      </Section>
      <Section title="2. Save your backup codes" level={3} className="flex flex-col gap-3">
        <BackupCodes codes={setup.backupCodes} email={email} />
      </Section>
      <Section title="3. Confirm with a code from the app" level={3} className="flex flex-col gap-3">
        <ConfirmCode onDone={onDone} />
      </Section>
    </div>
  );
}

function ConfirmCode({ onDone }: { onDone: () => void }) {
  const form = useForm<TotpCodeRequest>({ resolver: zodResolver(TotpCodeSchema), defaultValues: { code: '' } });
  const confirm = useConfirmTwoFactor({ onSuccess: onDone });
  return (
    <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => confirm.mutate(v))}>
      <TextField
        label="Enter the 6-digit code from your app"
        autoComplete="one-time-code"
        inputMode="numeric"
        {...fieldOf(form, 'code')}
      />
      <div className="flex flex-wrap gap-2">
        <SubmitButton pending={confirm.isPending} pendingLabel="Turning on…">
          Turn on two-factor
        </SubmitButton>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
