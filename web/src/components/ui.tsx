import { type ComponentProps, forwardRef, type ReactNode, useId } from 'react';

const cx = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(' ');

type ButtonProps = ComponentProps<'button'> & { variant?: 'primary' | 'secondary' | 'ghost' | 'danger' };

const BUTTON_STYLES = {
  primary: 'bg-brand-600 text-white hover:bg-brand-700 disabled:bg-brand-600/60',
  secondary:
    'border border-zinc-300 bg-white text-zinc-900 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
  ghost: 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-red-700/60',
};

export function Button({ variant = 'primary', className, type = 'button', ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={cx(
        'inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium transition-colors motion-reduce:transition-none disabled:cursor-not-allowed',
        BUTTON_STYLES[variant],
        className,
      )}
      {...props}
    />
  );
}

type FieldProps = ComponentProps<'input'> & { label: string; error?: string | undefined; hint?: ReactNode };

/** A form's submit button: disabled while `pending` (or `disabled`), saying `pendingLabel` meanwhile. */
export function SubmitButton({
  pending,
  pendingLabel,
  disabled,
  children,
  ...props
}: ButtonProps & { pending: boolean; pendingLabel: string }) {
  return (
    <Button type="submit" disabled={pending || disabled} {...props}>
      {pending ? pendingLabel : children}
    </Button>
  );
}

/** What ties a control to its field's message (`Labelled`): the error, or else the hint. */
const describedBy = (id: string, error: string | undefined, hint: ReactNode) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': error || hint ? `${id}-message` : undefined,
});

/** A label above its control, and below it the error (announced) or else the hint. */
function Labelled(props: {
  id: string;
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className={cx('flex flex-col gap-1.5', props.className)}>
      <label htmlFor={props.id} className="text-sm font-medium">
        {props.label}
      </label>
      {props.children}
      {props.error ? (
        <p id={`${props.id}-message`} role="alert" className="text-sm text-red-700 dark:text-red-400">
          {props.error}
        </p>
      ) : props.hint ? (
        <p id={`${props.id}-message`} className="text-sm text-zinc-600 dark:text-zinc-400">
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input; its error is announced and tied to the input by `aria-describedby`. */
export const TextField = forwardRef<HTMLInputElement, FieldProps>(function TextField(
  { label, error, hint, className, id, ...props },
  ref,
) {
  const generated = useId();
  const inputId = id ?? generated;
  return (
    <Labelled id={inputId} label={label} error={error} hint={hint} className={className}>
      <input
        ref={ref}
        id={inputId}
        {...describedBy(inputId, error, hint)}
        className="rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs placeholder:text-zinc-400 aria-invalid:border-red-600 dark:border-zinc-700 dark:bg-zinc-900"
        {...props}
      />
    </Labelled>
  );
});

type TextAreaProps = ComponentProps<'textarea'> & {
  label: string;
  hint?: string;
  error?: string | undefined;
  /** Monospaced, for one-entry-a-line lists (origins, words, domains). */
  mono?: boolean;
};

/** A labelled textarea; the hint, or in its place the error (announced), is tied to it by `aria-describedby`. */
export const TextAreaField = forwardRef<HTMLTextAreaElement, TextAreaProps>(function TextAreaField(
  { label, hint, error, mono, ...props },
  ref,
) {
  const id = useId();
  return (
    <Labelled id={id} label={label} error={error} hint={hint}>
      <textarea
        ref={ref}
        id={id}
        rows={3}
        {...describedBy(id, error, hint)}
        className={cx(
          'rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm aria-invalid:border-red-600 dark:border-zinc-700 dark:bg-zinc-900',
          mono && 'font-mono',
        )}
        {...props}
      />
    </Labelled>
  );
});

/** A checkbox with its label on the right; `role="switch"` with `aria-checked` for an on/off setting. */
export const CheckboxField = forwardRef<HTMLInputElement, ComponentProps<'input'> & { label: ReactNode }>(
  function CheckboxField({ label, ...props }, ref) {
    return (
      <label className="flex items-center gap-3 text-sm font-medium">
        <input ref={ref} type="checkbox" className="size-4" {...props} />
        {label}
      </label>
    );
  },
);

export function Notice({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'error' }) {
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={cx(
        'rounded-md border px-3 py-2 text-sm',
        tone === 'error'
          ? 'border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200'
          : 'border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300',
      )}
    >
      {children}
    </div>
  );
}

export { cx };
