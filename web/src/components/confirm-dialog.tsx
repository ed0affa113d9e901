import { AlertDialog } from 'radix-ui';
import { type ReactNode, useState } from 'react';
import { Button, TextField } from './ui.tsx';

/**
 * A destructive action behind a confirmation (Radix alert dialog: focus trapped, Escape cancels). With
 * `typeToConfirm`, the action stays disabled until that exact text is typed (deleting a form, an organization or
 * an account); `children` add fields of their own (the account's password). Without a `trigger`, the screen opens
 * it (`open`, `onOpenChange`): after its own form has validated what the action will act on.
 */
export function ConfirmDialog(props: {
  /** A label, shown on a `Button` of `triggerVariant` (default danger), or the element that opens the dialog. */
  trigger?: ReactNode;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  /** The label's accessible name when its visible text is not enough ("Remove ada@example.com"). */
  triggerLabel?: string;
  triggerVariant?: 'danger' | 'secondary' | 'ghost';
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  typeToConfirm?: string;
  pending?: boolean;
  children?: ReactNode;
}) {
  const [typed, setTyped] = useState('');
  const blocked = props.typeToConfirm !== undefined && typed !== props.typeToConfirm;
  return (
    <AlertDialog.Root
      {...(props.open === undefined ? {} : { open: props.open })}
      onOpenChange={(open) => {
        setTyped('');
        props.onOpenChange?.(open);
      }}
    >
      {props.trigger === undefined ? null : (
        <AlertDialog.Trigger asChild>
          {typeof props.trigger === 'string' ? (
            <Button variant={props.triggerVariant ?? 'danger'} aria-label={props.triggerLabel}>
              {props.trigger}
            </Button>
          ) : (
            props.trigger
          )}
        </AlertDialog.Trigger>
      )}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 flex w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
          <AlertDialog.Title className="text-lg font-semibold">{props.title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="flex flex-col gap-2 text-sm text-zinc-700 dark:text-zinc-300">{props.description}</div>
          </AlertDialog.Description>
          {props.children}
          {props.typeToConfirm !== undefined ? (
            <TextField
              label={`Type "${props.typeToConfirm}" to confirm`}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoComplete="off"
            />
          ) : null}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="danger" disabled={blocked || props.pending} onClick={props.onConfirm}>
                {props.confirmLabel}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
