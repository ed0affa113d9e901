import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { formsListQuery } from '../../features/forms/forms.queries.ts';
import { describeError } from '../../lib/api.ts';

/** Placeholder forms index: the heading and the organization's forms (the full screen comes next). */
export function Component() {
  const forms = useQuery(formsListQuery());
  return (
    <section className="flex flex-col gap-4">
      <h1 className="text-2xl font-semibold">Forms</h1>
      {forms.isPending ? <p role="status">Loading forms…</p> : null}
      {forms.isError ? <Notice tone="error">{describeError(forms.error)}</Notice> : null}
      {forms.data?.length === 0 ? (
        <p>
          No forms yet.{' '}
          <Link to="/dashboard/forms/create" className="text-brand-600 underline">
            Create your first form
          </Link>
          .
        </p>
      ) : null}
      <ul className="flex flex-col gap-2">
        {forms.data?.map((form) => (
          <li key={form.id}>
            <Link to={`/dashboard/forms/${encodeURIComponent(form.slug)}`} className="text-brand-600 underline">
              {form.name}
            </Link>{' '}
            <code className="text-sm text-zinc-600 dark:text-zinc-400">{form.endpoint}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}
