import type { ReactNode } from 'react';

/** An honest stand-in for a dashboard screen that is not built yet. */
export function Placeholder({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="flex flex-col gap-3">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="text-zinc-600 dark:text-zinc-400">{children ?? 'This screen is coming soon.'}</p>
    </section>
  );
}
