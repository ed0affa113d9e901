import { AlertDialog } from 'radix-ui';
import { type ComponentProps, forwardRef, type ReactNode, useId, useState } from 'react';
import { Button, cx } from './ui.tsx';

/** A titled section of a settings screen; its heading labels it for screen readers. */
export function Panel(props: {
  title: string;
  description?: ReactNode;
  tone?: 'default' | 'danger';
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section
      aria-labelledby={id}
      className={cx(
        'flex flex-col gap-4 rounded-lg border p-4 sm:p-6',
        props.tone === 'danger'
          ? 'border-red-300 dark:border-red-900'
          : 'border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40',
      )}
    >
      <div className="flex flex-col gap-1">
        <h2 id={id} className="text-lg font-semibold">
          {props.title}
        </h2>
        {props.description ? <p className="text-sm text-zinc-600 dark:text-zinc-400">{props.description}</p> : null}
      </div>
      {props.children}
    </section>
  );
}

type SelectProps = ComponentProps<'select'> & { label: string; hideLabel?: boolean };

/** A labelled native select (keyboard and screen readers for free). */
export const SelectField = forwardRef<HTMLSelectElement, SelectProps>(function SelectField(
  { label, hideLabel, className, id, children, ...props },
  ref,
) {
  const generated = useId();
  const selectId = id ?? generated;
  return (
    <div className={cx('flex flex-col gap-1.5', className)}>
      <label htmlFor={selectId} className={hideLabel ? 'sr-only' : 'text-sm font-medium'}>
        {label}
      </label>
      <select
        ref={ref}
        id={selectId}
        className="rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        {...props}
      >
        {children}
      </select>
    </div>
  );
});

/**
 * A destructive action behind a confirmation dialog. With `confirmText`, the action stays disabled until the
 * person types it (deleting an account or an organization).
 */
export function ConfirmDialog(props: {
  trigger: string;
  /** The trigger's accessible name when its visible text is not enough ("Remove ada@example.com"). */
  triggerLabel?: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  confirmText?: string;
  pending?: boolean;
  onConfirm: () => void;
  triggerVariant?: 'danger' | 'secondary' | 'ghost';
  children?: ReactNode;
}) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const ready = !props.confirmText || typed === props.confirmText;
  return (
    <AlertDialog.Root onOpenChange={(open) => !open && setTyped('')}>
      <AlertDialog.Trigger asChild>
        <Button variant={props.triggerVariant ?? 'danger'} aria-label={props.triggerLabel}>
          {props.trigger}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 flex w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 flex-col gap-4 rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
          <AlertDialog.Title className="text-lg font-semibold">{props.title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="flex flex-col gap-2 text-sm text-zinc-700 dark:text-zinc-300">{props.description}</div>
          </AlertDialog.Description>
          {props.children}
          {props.confirmText ? (
            <div className="flex flex-col gap-1.5">
              <label htmlFor={inputId} className="text-sm font-medium">
                Type <span className="font-mono font-semibold">{props.confirmText}</span> to confirm
              </label>
              <input
                id={inputId}
                value={typed}
                autoComplete="off"
                onChange={(e) => setTyped(e.target.value)}
                className="rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
              />
            </div>
          ) : null}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="danger" disabled={!ready || props.pending} onClick={props.onConfirm}>
                {props.confirmLabel}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** A date as people read it ("23 Nov 2026, 17:16"), or "—". */
export function formatDateTime(value: string | Date | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}
