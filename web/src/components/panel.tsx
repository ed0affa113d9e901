import { type ComponentProps, type FormEvent, forwardRef, type ReactNode, useId } from 'react';
import { cx } from './ui.tsx';

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

/** A titled part of a screen, unframed (a `Panel` is framed); its heading labels it for screen readers. */
export function Section(props: {
  title: ReactNode;
  level?: 2 | 3;
  /** The heading's id, for another element it names too; generated otherwise. */
  id?: string;
  className?: string;
  children: ReactNode;
}) {
  const generated = useId();
  const id = props.id ?? generated;
  const Heading = props.level === 3 ? 'h3' : 'h2';
  return (
    <section aria-labelledby={id} className={props.className ?? 'flex flex-col gap-2'}>
      <Heading id={id} className={props.level === 3 ? 'font-semibold' : 'text-lg font-semibold'}>
        {props.title}
      </Heading>
      {props.children}
    </section>
  );
}

/** A one-line form of a panel (its fields and button side by side from `sm` up), named for screen readers. */
export function InlineForm(props: { label: string; onSubmit: (e: FormEvent) => void; children: ReactNode }) {
  return (
    <form
      noValidate
      aria-label={props.label}
      className="flex flex-col gap-3 sm:flex-row sm:items-end"
      onSubmit={props.onSubmit}
    >
      {props.children}
    </form>
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

/** A date as people read it ("23 Nov 2026, 17:16"), or "—". */
export function formatDateTime(value: string | Date | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}
