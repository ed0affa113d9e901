import { useQuery } from '@tanstack/react-query';
import { Link, NavLink } from 'react-router';
import { cx } from '../../components/ui.tsx';
import { UsageMeter } from '../../features/billing/usage-meter.tsx';
import { flagQuery } from '../../features/flags/flags.queries.ts';
import { formsListQuery } from '../../features/forms/forms.queries.ts';
import { OrganizationSwitcher } from '../../features/organization/organization-switcher.tsx';
import type { SessionData } from '../../features/session/session.queries.ts';
import { UserMenu } from '../../features/session/user-menu.tsx';
import { FeedbackDialog } from '../../features/site/feedback-dialog.tsx';
import { siteQuery } from '../../features/site/site.queries.ts';

const navClass = ({ isActive }: { isActive: boolean }) =>
  cx(
    'block rounded-md px-3 py-2 text-sm font-medium',
    isActive
      ? 'bg-zinc-200 text-zinc-900 dark:bg-zinc-800 dark:text-white'
      : 'text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800',
  );

export function Sidebar({ session }: { session: SessionData }) {
  const forms = useQuery(formsListQuery());
  const emails = useQuery(flagQuery('emailManagement'));
  const site = useQuery(siteQuery());
  const feedbackEndpoint = site.data?.forms.feedback;
  return (
    <div className="flex h-full flex-col gap-4 overflow-y-auto p-4">
      <OrganizationSwitcher activeOrganizationId={session.session.activeOrganizationId ?? null} />
      <nav aria-label="Dashboard" className="flex flex-col gap-1">
        <NavLink to="/dashboard/forms" end className={navClass}>
          Forms
        </NavLink>
        {forms.data && forms.data.length > 0 ? (
          <ul
            aria-label="Your forms"
            className="ml-3 flex flex-col gap-0.5 border-l border-zinc-200 pl-2 dark:border-zinc-800"
          >
            {forms.data.map((form) => (
              <li key={form.id}>
                <NavLink to={`/dashboard/forms/${encodeURIComponent(form.slug)}`} className={navClass}>
                  <span className="block truncate">{form.name}</span>
                </NavLink>
              </li>
            ))}
          </ul>
        ) : null}
        {emails.data === true ? (
          <NavLink to="/dashboard/emails" className={navClass}>
            Emails
          </NavLink>
        ) : null}
        <NavLink to="/dashboard/billing" className={navClass}>
          Billing
        </NavLink>
        <NavLink to="/dashboard/organization" className={navClass}>
          Organization
        </NavLink>
      </nav>
      <Link
        to="/dashboard/forms/create"
        className="rounded-md bg-brand-600 px-3 py-2 text-center text-sm font-medium text-white hover:bg-brand-700"
      >
        New form
      </Link>
      <div className="mt-auto flex flex-col gap-3">
        {feedbackEndpoint ? <FeedbackDialog email={session.user.email} endpoint={feedbackEndpoint} /> : null}
        <Link to="/" className="px-3 text-sm text-zinc-700 underline-offset-4 hover:underline dark:text-zinc-300">
          Homepage
        </Link>
        <UsageMeter />
        <UserMenu email={session.user.email} variant="sidebar" />
      </div>
    </div>
  );
}
