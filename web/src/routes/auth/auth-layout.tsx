import { Link, Outlet } from 'react-router';

/** The centred card of sign-in, sign-up, verification, reset and onboarding. */
export function Component() {
  return (
    <div className="flex min-h-dvh flex-col items-center justify-center gap-6 bg-zinc-50 px-4 py-10 dark:bg-zinc-950">
      <Link to="/" className="text-lg font-semibold">
        Formgate
      </Link>
      <main className="w-full max-w-sm rounded-lg border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <Outlet />
      </main>
    </div>
  );
}
