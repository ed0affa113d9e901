/** What shows while the session (or a first route module) loads. */
export function LoadingShell() {
  return (
    <div className="flex min-h-dvh items-center justify-center">
      <p role="status" aria-live="polite" className="text-sm text-zinc-600 dark:text-zinc-400">
        Loading
      </p>
    </div>
  );
}
