import { Dialog } from 'radix-ui';
import { type ReactNode, useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import type { SessionData } from '../../features/session/session.queries.ts';
import { Sidebar } from './sidebar.tsx';

/** A fixed sidebar on large screens; on small ones a slide-in drawer (a Radix dialog) behind "Open navigation". */
export function DashboardShell({ session, children }: { session: SessionData; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation closes the drawer
  useEffect(() => setOpen(false), [pathname]);
  return (
    <div className="min-h-dvh">
      <aside className="fixed inset-y-0 left-0 hidden w-64 border-r border-zinc-200 bg-zinc-50 lg:block dark:border-zinc-800 dark:bg-zinc-900">
        <Sidebar session={session} />
      </aside>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <header className="sticky top-0 z-10 flex items-center gap-3 border-b border-zinc-200 bg-white/90 px-4 py-3 backdrop-blur lg:hidden dark:border-zinc-800 dark:bg-zinc-950/90">
          <Dialog.Trigger
            aria-label="Open navigation"
            className="rounded-md p-2 hover:bg-zinc-100 dark:hover:bg-zinc-800"
          >
            <StrokeIcon path="M3 5h14M3 10h14M3 15h14" />
          </Dialog.Trigger>
          <span className="font-semibold">Formgate</span>
        </header>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 lg:hidden" />
          <Dialog.Content
            aria-describedby={undefined}
            className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] border-r border-zinc-200 bg-zinc-50 shadow-xl lg:hidden dark:border-zinc-800 dark:bg-zinc-900"
          >
            <Dialog.Title className="sr-only">Navigation</Dialog.Title>
            <Dialog.Close
              aria-label="Close navigation"
              className="absolute top-3 right-3 rounded-md p-2 hover:bg-zinc-200 dark:hover:bg-zinc-800"
            >
              <StrokeIcon path="M5 5l10 10M15 5L5 15" />
            </Dialog.Close>
            <Sidebar session={session} />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
      <main className="px-4 py-6 lg:ml-64 lg:px-10 lg:py-10">{children}</main>
    </div>
  );
}

/** A 20 px stroked icon of one path: the menu's three bars, or the cross that closes it. */
function StrokeIcon({ path }: { path: string }) {
  return (
    <svg
      aria-hidden="true"
      width="20"
      height="20"
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
    >
      <path d={path} />
    </svg>
  );
}
