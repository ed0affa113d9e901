import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { siteQuery } from '../../features/site/site.queries.ts';

const n = (value: number) => value.toLocaleString('en');

/** The plans this instance is configured with, and their monthly limits. */
export function Component() {
  const site = useQuery(siteQuery());
  return (
    <div className="flex flex-col gap-8">
      <div className="flex flex-col gap-3">
        <h1 className="text-3xl font-bold">Pricing</h1>
        <p className="text-zinc-700 dark:text-zinc-300">
          Limits are per organization and calendar month. Spam is never counted, and over the limit your submissions are
          held for you, not lost.
        </p>
      </div>
      {site.isPending ? <p role="status">Loading</p> : null}
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
        {site.data?.plans.map((plan) => (
          <li key={plan.id} className="flex flex-col gap-4 rounded-lg border border-zinc-200 p-6 dark:border-zinc-800">
            <h2 className="text-xl font-semibold">{plan.name}</h2>
            <p className="text-3xl font-bold">
              {plan.price ?? 'Free'}
              {plan.price && plan.price !== 'Free' ? <span className="text-base font-normal"> / month</span> : null}
            </p>
            <ul className="flex flex-col gap-1 text-sm">
              <li>{n(plan.submissionsPerMonth)} submissions a month</li>
              <li>{n(plan.emailsPerMonth)} notification emails a month</li>
              <li>Unlimited forms and team members</li>
            </ul>
            <Link
              to="/sign-up"
              className="mt-auto rounded-md bg-brand-600 px-4 py-2 text-center font-medium text-white hover:bg-brand-700"
            >
              Get started
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
