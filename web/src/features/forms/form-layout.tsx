import { useQuery } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useOutletContext, useParams } from 'react-router';
import { cx } from '../../components/ui.tsx';
import { type FormWithCountsDto, formBySlugQuery } from './forms.queries.ts';

const TABS = [
  { to: 'overview', label: 'Overview' },
  { to: 'submissions', label: 'Submissions' },
  { to: 'settings', label: 'Settings' },
  { to: 'example', label: 'Example' },
] as const;

/**
 * `/dashboard/forms/{formSlug}`: resolves the slug to the form (an unknown slug goes back to the forms index), then
 * shows the form's name and its sections as navigation links (each section has its own address).
 */
export function FormLayout() {
  const { formSlug = '' } = useParams();
  const form = useQuery(formBySlugQuery(formSlug));
  if (form.isPending) return <p role="status">Loading form…</p>;
  if (form.isError) throw form.error;
  if (!form.data) return <Navigate to="/dashboard/forms" replace />;
  return (
    <div className="flex flex-col gap-6">
      <header className="flex flex-col gap-3">
        <div className="flex flex-wrap items-center gap-2">
          <h1 className="min-w-0 text-2xl font-semibold break-words">{form.data.name}</h1>
          {form.data.settings.enabled ? null : (
            <span className="rounded-full bg-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
              Disabled
            </span>
          )}
        </div>
        <nav aria-label="Form sections" className="-mx-1 overflow-x-auto">
          <ul className="flex gap-0.5 border-b border-zinc-200 px-1 dark:border-zinc-800">
            {TABS.map((tab) => (
              <li key={tab.to}>
                <NavLink
                  to={tab.to}
                  className={({ isActive }) =>
                    cx(
                      '-mb-px block border-b-2 px-2 py-2 text-sm font-medium whitespace-nowrap sm:px-3',
                      isActive
                        ? 'border-brand-600 text-zinc-900 dark:border-brand-300 dark:text-white'
                        : 'border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-white',
                    )
                  }
                >
                  {tab.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <Outlet context={form.data satisfies FormWithCountsDto} />
    </div>
  );
}

/** The form resolved by the enclosing `forms/:formSlug` route. */
export const useForm = () => useOutletContext<FormWithCountsDto>();
