import {
  type CreateApiKeyRequest,
  CreateApiKeyRequestSchema,
  type CreatedApiKeyDto,
  type PermissionRequest,
} from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { formatDateTime, InlineForm, Panel, SelectField } from '../../components/panel.tsx';
import { SecretOnce } from '../../components/secret-once.tsx';
import { Notice, SubmitButton, TextField } from '../../components/ui.tsx';
import { useCreateApiKey, useRevokeApiKey } from './api-keys.mutations.ts';
import { apiKeysQuery } from './organization.queries.ts';

type Can = (request: PermissionRequest) => boolean;

/**
 * The organization's API keys. A new key is shown once, right after creation, from this component's state only
 * (never cached): dismissing it or leaving the page loses it for good; the list shows its first characters.
 */
export function ApiKeys({ can }: { can: Can }) {
  const keys = useQuery(apiKeysQuery());
  const [created, setCreated] = useState<CreatedApiKeyDto | null>(null);
  const form = useForm<CreateApiKeyRequest>({
    resolver: zodResolver(CreateApiKeyRequestSchema),
    defaultValues: { name: '', scope: 'read' },
  });
  const create = useCreateApiKey({
    onSuccess: (key) => {
      setCreated(key);
      form.reset({ name: '', scope: 'read' });
    },
  });
  const revoke = useRevokeApiKey();
  return (
    <Panel
      title="API keys"
      description="Keys call the REST API for this organization: read keys act as a member (no changes), write keys as an admin."
    >
      {created ? <NewKey created={created} onDone={() => setCreated(null)} /> : null}
      {can({ apiKey: ['create'] }) ? (
        <InlineForm label="Create an API key" onSubmit={form.handleSubmit((v) => create.mutate(v))}>
          <TextField className="sm:flex-1" label="Key name" {...fieldOf(form, 'name')} />
          <SelectField label="Scope" {...form.register('scope')}>
            <option value="read">read</option>
            <option value="write">write</option>
          </SelectField>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create key
          </SubmitButton>
        </InlineForm>
      ) : null}
      {keys.isPending ? (
        <p className="text-sm">Loading…</p>
      ) : keys.isError ? (
        <Notice tone="error">The API keys could not be loaded.</Notice>
      ) : keys.data.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No API keys yet.</p>
      ) : (
        <ul aria-label="API keys" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
          {keys.data.map((key) => (
            <li key={key.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
              <div className="flex min-w-0 flex-col gap-0.5 text-sm">
                <span className="font-medium break-words">
                  {key.name ?? 'Unnamed key'}{' '}
                  <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs dark:bg-zinc-800">{key.scope}</span>
                </span>
                <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{key.start ?? ''}…</span>
                <span className="text-zinc-600 dark:text-zinc-400">
                  Created {formatDateTime(key.createdAt)} · last used{' '}
                  {key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'never'}
                </span>
              </div>
              {can({ apiKey: ['delete'] }) ? (
                <ConfirmDialog
                  trigger="Revoke"
                  triggerVariant="secondary"
                  triggerLabel={`Revoke ${key.name ?? 'key'} (${key.start ?? ''}…)`}
                  title={`Revoke ${key.name ?? 'this key'}?`}
                  description={<p>Programs using it are refused from now on (within 30 seconds everywhere).</p>}
                  confirmLabel="Revoke key"
                  pending={revoke.isPending}
                  onConfirm={() => revoke.mutate(key.id)}
                />
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

function NewKey({ created, onDone }: { created: CreatedApiKeyDto; onDone: () => void }) {
  return (
    <SecretOnce
      label="Your new API key"
      secret={created.key}
      warning="Copy this key now: it is shown only once. Formgate keeps only a hash and cannot show it again."
      copyLabel="Copy key"
      copied="API key copied"
      copyFailed="Copying failed: select the key and copy it yourself"
      testId="new-api-key"
      onDone={onDone}
    />
  );
}
