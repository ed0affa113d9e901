import { Link } from 'react-router';

export function NotFound() {
  return (
    <main className="mx-auto flex min-h-dvh max-w-xl flex-col items-start justify-center gap-4 p-6">
      <h1 className="text-2xl font-semibold">Not Found</h1>
      <p className="text-zinc-600 dark:text-zinc-400">There is no page at this address.</p>
      <Link to="/" className="text-brand-600 underline dark:text-brand-50">
        Go to the homepage
      </Link>
    </main>
  );
}
