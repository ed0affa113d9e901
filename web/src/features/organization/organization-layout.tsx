import type { PermissionRequest } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useOutletContext } from 'react-router';
import { cx, Notice } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import { activeOrganizationQuery, type FullOrganization } from '../session/session.queries.ts';
import { useCan } from './use-can.ts';

/** The settings' sections; one with a `permission` is listed only to those the role grants it. */
const SECTIONS: { to: string; label: string; end: boolean; permission?: PermissionRequest }[] = [
  { to: '/dashboard/organization', label: 'General', end: true },
  { to: '/dashboard/organization/privacy', label: 'Privacy', end: false },
  {
    to: '/dashboard/organization/single-sign-on',
    label: 'Single sign-on',
    end: false,
    permission: { organization: ['update'] },
  },
  { to: '/dashboard/organization/audit-log', label: 'Audit log', end: false, permission: { organization: ['update'] } },
];

/**
 * `/dashboard/organization`: the active organization's name, the member's role, and its settings' sections as
 * navigation links (each section has its own address; single sign-on's and the audit log's only for owners and
 * admins).
 */
export function OrganizationLayout() {
  const organization = useQuery(activeOrganizationQuery(useServices()));
  const access = useCan();
  if (organization.isPending || access.isPending) return <p>Loading…</p>;
  if (organization.isError || !organization.data)
    return <Notice tone="error">The organization could not be loaded.</Notice>;
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <header className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <h1 className="text-2xl font-semibold break-words">{organization.data.name}</h1>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Your role: <span className="font-medium">{access.role ?? 'none'}</span>
          </p>
        </div>
        <nav aria-label="Organization sections" className="-mx-1 overflow-x-auto">
          <ul className="flex gap-0.5 border-b border-zinc-200 px-1 dark:border-zinc-800">
            {SECTIONS.filter((s) => !s.permission || access.can(s.permission)).map((section) => (
              <li key={section.to}>
                <NavLink
                  to={section.to}
                  end={section.end}
                  className={({ isActive }) =>
                    cx(
                      '-mb-px block border-b-2 px-2 py-2 text-sm font-medium whitespace-nowrap sm:px-3',
                      isActive
                        ? 'border-brand-600 text-zinc-900 dark:border-brand-300 dark:text-white'
                        : 'border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-white',
                    )
                  }
                >
                  {section.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <Outlet context={organization.data satisfies FullOrganization} />
    </div>
  );
}

/** The active organization resolved by the enclosing `organization` route. */
export const useOrganization = () => useOutletContext<FullOrganization>();
