import type { ReactNode } from 'react';
import { toast } from 'sonner';
import { Button } from './ui.tsx';

/**
 * A secret shown once (a new API key, a webhook signing secret): a warning, the secret as text, "Copy" and
 * "I have saved it". The screen holds the secret in its own state, never in the query cache.
 */
export function SecretOnce(props: {
  /** The region's accessible name ("Your new API key"). */
  label: string;
  secret: string;
  warning: ReactNode;
  /** Shown between the warning and the secret (what it belongs to). */
  children?: ReactNode;
  copyLabel: string;
  copied: string;
  copyFailed: string;
  testId?: string;
  onDone: () => void;
}) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      toast.success(props.copied);
    } catch {
      toast.error(props.copyFailed);
    }
  };
  return (
    <section
      aria-label={props.label}
      className="flex min-w-0 flex-col gap-3 rounded-md border border-amber-400 bg-amber-50 p-4 text-sm dark:border-amber-700 dark:bg-amber-950"
    >
      <p className="font-semibold text-amber-900 dark:text-amber-100">{props.warning}</p>
      {props.children}
      <code
        data-testid={props.testId}
        className="block overflow-x-auto rounded bg-white p-2 font-mono break-all dark:bg-zinc-950"
      >
        {props.secret}
      </code>
      <div className="flex flex-wrap gap-2">
        <Button onClick={copy}>{props.copyLabel}</Button>
        <Button variant="secondary" onClick={props.onDone}>
          I have saved it
        </Button>
      </div>
    </section>
  );
}
