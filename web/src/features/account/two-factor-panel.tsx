import { type ReactNode, useState } from 'react';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Panel } from '../../components/panel.tsx';
import { Button, TextField } from '../../components/ui.tsx';
import { useDisableTwoFactor, useGenerateBackupCodes } from './account.mutations.ts';
import { BackupCodes } from './backup-codes.tsx';
import { TwoFactorSetupFlow } from './two-factor-setup.tsx';

/** The profile's two-factor panel: setting it up while it is off; new backup codes or turning it off once on. */
export function TwoFactorPanel({ enabled, email }: { enabled: boolean; email: string }) {
  return (
    <Panel
      title="Two-factor authentication"
      description="Signing in then asks for a 6-digit code from an authenticator app on your phone as well as your password, so a stolen password is not enough to get in."
    >
      <p className="text-sm">
        Status: <strong>{enabled ? 'On' : 'Off'}</strong>
      </p>
      {enabled ? <TwoFactorOn email={email} /> : <TwoFactorSetupFlow email={email} />}
    </Panel>
  );
}

function TwoFactorOn({ email }: { email: string }) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const generate = useGenerateBackupCodes({ onSuccess: setCodes });
  const disable = useDisableTwoFactor();
  return (
    <>
      {codes ? (
        <div className="flex flex-col gap-3">
          <BackupCodes codes={codes} email={email} />
          <div>
            <Button variant="secondary" onClick={() => setCodes(null)}>
              I have saved them
            </Button>
          </div>
        </div>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <PasswordConfirm
          trigger="Show new backup codes"
          triggerVariant="secondary"
          title="Make new backup codes?"
          description={<p>The new codes replace your current ones, which stop working at once.</p>}
          confirmLabel={generate.isPending ? 'Making codes…' : 'Show new backup codes'}
          pending={generate.isPending}
          onConfirm={(password) => generate.mutate(password)}
        />
        <PasswordConfirm
          trigger="Turn off two-factor"
          title="Turn off two-factor authentication?"
          description={
            <p>
              Signing in will ask only for your password, and your backup codes stop working. Organizations that require
              two-factor will let you reach only your profile.
            </p>
          }
          confirmLabel={disable.isPending ? 'Turning off…' : 'Turn off two-factor'}
          pending={disable.isPending}
          onConfirm={(password) => disable.mutate(password)}
        />
      </div>
    </>
  );
}

/** A `ConfirmDialog` that asks for the password first (cleared whenever the dialog opens or closes). */
function PasswordConfirm(props: {
  trigger: string;
  triggerVariant?: 'danger' | 'secondary';
  title: string;
  description: ReactNode;
  confirmLabel: string;
  pending: boolean;
  onConfirm: (password: string) => void;
}) {
  const [password, setPassword] = useState('');
  return (
    <ConfirmDialog
      trigger={props.trigger}
      triggerVariant={props.triggerVariant ?? 'danger'}
      title={props.title}
      description={props.description}
      confirmLabel={props.confirmLabel}
      pending={props.pending || password.length === 0}
      onOpenChange={() => setPassword('')}
      onConfirm={() => props.onConfirm(password)}
    >
      <TextField
        label="Your password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
    </ConfirmDialog>
  );
}
