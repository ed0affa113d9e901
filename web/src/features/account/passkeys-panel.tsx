import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { formatDateTime, InlineForm, Panel } from '../../components/panel.tsx';
import { Button, Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import { useAddPasskey, useRemovePasskey, useRenamePasskey } from './account.mutations.ts';
import {
  defaultPasskeyName,
  type PasskeyNameRequest,
  PasskeyNameSchema,
  type PasskeyRow,
  passkeysQuery,
} from './account.queries.ts';

/** The profile's passkeys: the list (each renamed or removed in place) and "Add a passkey". */
export function PasskeysPanel() {
  const services = useServices();
  const passkeys = useQuery(passkeysQuery(services));
  const [adding, setAdding] = useState(false);
  return (
    <Panel
      title="Passkeys"
      description="A passkey signs you in with your fingerprint, face, screen lock or security key instead of your password. Your device or password manager keeps it; Formgate keeps only its public half."
    >
      {passkeys.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : passkeys.isError ? (
        <Notice tone="error">Your passkeys could not be loaded.</Notice>
      ) : passkeys.data.length === 0 ? (
        <p className="text-sm">You have no passkeys yet.</p>
      ) : (
        <ul aria-label="Your passkeys" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {passkeys.data.map((passkey) => (
            <PasskeyItem key={passkey.id} passkey={passkey} />
          ))}
        </ul>
      )}
      {adding ? (
        <AddPasskeyForm onDone={() => setAdding(false)} />
      ) : (
        <div>
          <Button onClick={() => setAdding(true)}>Add a passkey</Button>
        </div>
      )}
    </Panel>
  );
}

const nameOf = (passkey: PasskeyRow) => passkey.name || 'Unnamed passkey';

/** Where the passkey lives, when the authenticator said so at registration. */
function whereKept(passkey: PasskeyRow): string | null {
  if (passkey.deviceType === 'multiDevice')
    return passkey.backedUp ? 'synced across your devices' : 'can be synced across your devices';
  if (passkey.deviceType === 'singleDevice') return 'kept on one device';
  return null;
}

function PasskeyItem({ passkey }: { passkey: PasskeyRow }) {
  const [renaming, setRenaming] = useState(false);
  const remove = useRemovePasskey();
  const name = nameOf(passkey);
  const kept = whereKept(passkey);
  if (renaming) return <RenamePasskey passkey={passkey} onDone={() => setRenaming(false)} />;
  return (
    <li className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex min-w-0 flex-col gap-0.5 text-sm">
        <span className="font-medium break-words">{name}</span>
        <span className="text-zinc-600 dark:text-zinc-400">
          Added {formatDateTime(passkey.createdAt)}
          {kept ? ` · ${kept}` : ''}
        </span>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" aria-label={`Rename ${name}`} onClick={() => setRenaming(true)}>
          Rename
        </Button>
        <ConfirmDialog
          trigger="Remove"
          triggerLabel={`Remove ${name}`}
          triggerVariant="secondary"
          title="Remove this passkey?"
          description={
            <>
              <p>“{name}” will no longer sign you in to Formgate. Your password still works.</p>
              <p>
                Your device or password manager still holds the passkey: delete it there too if you no longer want it.
              </p>
            </>
          }
          confirmLabel={remove.isPending ? 'Removing…' : 'Remove passkey'}
          pending={remove.isPending}
          onConfirm={() => remove.mutate(passkey.id)}
        />
      </div>
    </li>
  );
}

function RenamePasskey({ passkey, onDone }: { passkey: PasskeyRow; onDone: () => void }) {
  const form = useForm<PasskeyNameRequest>({
    resolver: zodResolver(PasskeyNameSchema),
    defaultValues: { name: passkey.name ?? '' },
  });
  const rename = useRenamePasskey(passkey.id, { onSuccess: onDone });
  return (
    <li className="py-3">
      <InlineForm label={`Rename ${nameOf(passkey)}`} onSubmit={form.handleSubmit((v) => rename.mutate(v))}>
        <TextField label="New name" autoComplete="off" autoFocus className="flex-1" {...fieldOf(form, 'name')} />
        <div className="flex gap-2">
          <SubmitButton pending={rename.isPending} pendingLabel="Renaming…">
            Save
          </SubmitButton>
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
        </div>
      </InlineForm>
    </li>
  );
}

/** A name (offered: the browser and system it is made on), then the browser's own prompt creates the passkey. */
function AddPasskeyForm({ onDone }: { onDone: () => void }) {
  const form = useForm<PasskeyNameRequest>({
    resolver: zodResolver(PasskeyNameSchema),
    defaultValues: { name: defaultPasskeyName(globalThis.navigator?.userAgent) },
  });
  const add = useAddPasskey({ onSuccess: onDone });
  return (
    <form
      noValidate
      aria-label="Add a passkey"
      className="flex flex-col gap-4"
      onSubmit={form.handleSubmit((v) => add.mutate(v))}
    >
      <TextField
        label="Name of the passkey"
        hint="To tell your passkeys apart: the device or password manager that keeps it, for example."
        autoComplete="off"
        autoFocus
        {...fieldOf(form, 'name')}
      />
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Your browser then asks you to create the passkey, with your fingerprint, face, screen lock or security key.
      </p>
      <div className="flex flex-wrap gap-2">
        <SubmitButton pending={add.isPending} pendingLabel="Waiting for your device…">
          Create passkey
        </SubmitButton>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
