import { type ErasureRequest, ErasureRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { fieldOf } from '../../components/form-field.ts';
import { InlineForm, Panel } from '../../components/panel.tsx';
import { Button, TextField } from '../../components/ui.tsx';
import { ErasureReceiptView } from './erasure-receipt.tsx';
import { useCreateErasure } from './privacy.mutations.ts';
import type { SignedErasureReceipt } from './privacy.queries.ts';

/**
 * "Erase a person's data": an address, a confirmation that says what goes, then the signed receipt (held in this
 * component's state and the receipt's query, shown until dismissed or the page is left).
 */
export function ErasePanel({
  organizationName,
  onErased,
}: {
  organizationName: string;
  /** After an erasure: what else the page shows of the address goes too. */
  onErased?: () => void;
}) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const [signed, setSigned] = useState<SignedErasureReceipt | null>(null);
  const form = useForm<ErasureRequest>({ resolver: zodResolver(ErasureRequestSchema), defaultValues: { email: '' } });
  const erase = useCreateErasure({
    onSuccess: (receipt) => {
      setSigned(receipt);
      form.reset({ email: '' });
      onErased?.();
    },
  });
  return (
    <Panel
      title="Erase a person's data"
      description="When someone asks to have their data deleted, enter their email address. Formgate finds every submission of this organization in which it appears and deletes it, then gives you a signed receipt."
    >
      <InlineForm
        label="Erase a person's data"
        onSubmit={form.handleSubmit((v) => {
          setSigned(null);
          setConfirming(v.email.trim());
        })}
      >
        <TextField
          className="sm:flex-1"
          label="Email address"
          type="email"
          autoComplete="off"
          {...fieldOf(form, 'email')}
        />
        <Button type="submit" variant="danger" disabled={erase.isPending}>
          {erase.isPending ? 'Erasing…' : 'Erase data'}
        </Button>
      </InlineForm>
      <ConfirmDialog
        open={confirming !== null}
        onOpenChange={(open) => {
          if (!open) setConfirming(null);
        }}
        title={`Erase all data of ${confirming ?? ''}?`}
        description={
          <>
            <p>
              Every submission of {organizationName} in which this address appears — in any field, in any letter case,
              or as its reply-to or cc address — is deleted, together with its uploaded files, the copies kept of its
              notifications and the content of its webhook and email deliveries.
            </p>
            <p className="font-semibold">This cannot be undone.</p>
          </>
        }
        confirmLabel="Erase permanently"
        pending={erase.isPending}
        onConfirm={() => {
          if (confirming) erase.mutate({ email: confirming });
        }}
      />
      {signed ? (
        <div className="flex flex-col gap-2">
          <ErasureReceiptView signed={signed} label="Erasure receipt" />
          <div>
            <Button variant="ghost" onClick={() => setSigned(null)}>
              Dismiss receipt
            </Button>
          </div>
        </div>
      ) : null}
    </Panel>
  );
}
