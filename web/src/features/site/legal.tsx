import type { ReactNode } from 'react';

export const COMPANY = 'Formgate Ltd';
export const FOUNDED = 2025;
export const LEGAL_UPDATED = '1 June 2025';

export function LegalPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <article className="mx-auto flex max-w-2xl flex-col gap-4 leading-relaxed [&_h2]:mt-4 [&_h2]:text-xl [&_h2]:font-semibold [&_ul]:list-disc [&_ul]:pl-6">
      <h1 className="text-3xl font-bold">{title}</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">Last updated {LEGAL_UPDATED}</p>
      {children}
    </article>
  );
}
