import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { CopyButton } from '../../components/copy-button.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { endpointUrl, type FormWithCountsDto, formsListQuery } from './forms.queries.ts';

/** `/dashboard/forms`: the organization's forms as cards, or a first-form call to action. */
export function FormsIndexScreen() {
  const forms = useQuery(formsListQuery());
  return (
    <section className="flex flex-col gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Forms</h1>
        <Link
          to="/dashboard/forms/create"
          className="rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
        >
          New form
        </Link>
      </div>
      {forms.isPending ? <p role="status">Loading forms…</p> : null}
      {forms.isError ? <Notice tone="error">{describeError(forms.error)}</Notice> : null}
      {forms.data?.length === 0 ? (
        <div className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-zinc-300 p-6 dark:border-zinc-700">
          <h2 className="text-lg font-semibold">No forms yet</h2>
          <p className="text-zinc-700 dark:text-zinc-300">
            A form gives you an endpoint to point any HTML form or <code>fetch</code> call at.
          </p>
          <Link to="/dashboard/forms/create" className="font-medium text-brand-700 underline dark:text-brand-300">
            Create your first form
          </Link>
        </div>
      ) : null}
      {forms.data && forms.data.length > 0 ? (
        <ul aria-label="Forms" className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {forms.data.map((form) => (
            <FormCard key={form.id} form={form} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function FormCard({ form }: { form: FormWithCountsDto }) {
  const url = endpointUrl(form);
  const headingId = `form-${form.id}-name`;
  return (
    <li
      aria-labelledby={headingId}
      className="flex min-w-0 flex-col gap-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="flex items-start justify-between gap-2">
        <h2 id={headingId} className="min-w-0 text-base font-semibold">
          <Link
            to={`/dashboard/forms/${encodeURIComponent(form.slug)}`}
            className="block truncate text-brand-700 hover:underline dark:text-brand-300"
          >
            {form.name}
          </Link>
        </h2>
        <span
          className={
            form.settings.enabled
              ? 'shrink-0 rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800 dark:bg-green-950 dark:text-green-300'
              : 'shrink-0 rounded-full bg-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300'
          }
        >
          {form.settings.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </div>
      <div className="flex min-w-0 items-center gap-2">
        <code className="min-w-0 flex-1 truncate rounded bg-zinc-100 px-2 py-1 text-xs dark:bg-zinc-800" title={url}>
          {url}
        </code>
        <CopyButton text={url} label={`Copy the endpoint of ${form.name}`} />
      </div>
      <dl className="grid grid-cols-2 gap-2 text-sm">
        <div>
          <dt className="text-zinc-600 dark:text-zinc-400">Submissions</dt>
          <dd className="font-medium">{form.submissionCount ?? '—'}</dd>
        </div>
        <div>
          <dt className="text-zinc-600 dark:text-zinc-400">Last received</dt>
          <dd className="font-medium">{lastReceived(form.lastSubmissionAt)}</dd>
        </div>
      </dl>
    </li>
  );
}

/** Unknown (an older server sends no counters), never, or when. */
const lastReceived = (at: string | null | undefined) => (at === undefined ? '—' : at ? formatDateTime(at) : 'Never');
