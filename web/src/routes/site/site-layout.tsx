import { Link, NavLink, Outlet } from 'react-router';
import { useSession } from '../../features/session/use-session.ts';
import { COMPANY, FOUNDED } from '../../features/site/legal.tsx';

const HEADER_LINKS = [
  ['/pricing', 'Pricing'],
  ['/waitlist', 'Waitlist'],
] as const;
const FOOTER_LINKS = [
  ['/terms', 'Terms'],
  ['/privacy', 'Privacy'],
] as const;

/** Header and footer of the public pages. */
export function Component() {
  const session = useSession();
  const signedIn = Boolean(session.data);
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:rounded focus:bg-white focus:p-2 dark:focus:bg-zinc-900"
      >
        Skip to content
      </a>
      <header className="border-b border-zinc-200 dark:border-zinc-800">
        <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-5 gap-y-2 px-4 py-4">
          <Link to="/" className="mr-auto text-lg font-semibold">
            Formgate
          </Link>
          {HEADER_LINKS.map(([to, label]) => (
            <NavLink key={to} to={to} className="text-sm hover:underline">
              {label}
            </NavLink>
          ))}
          <Link
            to={signedIn ? '/dashboard' : '/login'}
            className="rounded-md bg-brand-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-brand-700"
          >
            {signedIn ? 'Dashboard' : 'Sign in'}
          </Link>
        </nav>
      </header>
      <main id="content" className="mx-auto w-full max-w-5xl flex-1 px-4 py-10">
        <Outlet />
      </main>
      <footer className="border-t border-zinc-200 dark:border-zinc-800">
        <div className="mx-auto flex max-w-5xl flex-wrap gap-x-5 gap-y-2 px-4 py-6 text-sm text-zinc-600 dark:text-zinc-400">
          <span className="mr-auto">
            © {FOUNDED}–{new Date().getFullYear()} {COMPANY}
          </span>
          {FOOTER_LINKS.map(([to, label]) => (
            <Link key={to} to={to} className="hover:underline">
              {label}
            </Link>
          ))}
        </div>
      </footer>
    </div>
  );
}
