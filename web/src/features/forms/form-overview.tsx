import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { CopyButton } from '../../components/copy-button.tsx';
import { Section } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useForm } from './form-layout.tsx';
import { endpointUrl, formStatsQuery } from './forms.queries.ts';
import { SubmissionsChart } from './submissions-chart.tsx';

const DAYS = 30;

/** `/dashboard/forms/{formSlug}/overview`: the endpoint, the totals (blocked requests too) and the last 30 days per day. */
export function FormOverviewScreen() {
  const form = useForm();
  const stats = useQuery(formStatsQuery(form.id, DAYS));
  const url = endpointUrl(form);
  const recent = stats.data?.data.reduce((sum, d) => ({ total: sum.total + d.total, spam: sum.spam + d.spam }), {
    total: 0,
    spam: 0,
  });
  return (
    <div className="flex flex-col gap-6">
      <Section title="Endpoint">
        <div className="flex min-w-0 items-center gap-2">
          <code
            className="min-w-0 flex-1 truncate rounded bg-zinc-100 px-2 py-1.5 text-sm dark:bg-zinc-800"
            title={url}
          >
            {url}
          </code>
          <CopyButton text={url} label="Copy the endpoint" />
        </div>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Point a form's <code>action</code> here; the{' '}
          <Link to="../example" relative="path" className="text-brand-700 underline dark:text-brand-300">
            examples
          </Link>{' '}
          show how.
        </p>
      </Section>
      <Section title="Totals">
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
          <Stat label="Submissions" value={form.submissionCount} />
          <Stat label="Spam" value={form.spamCount} />
          <Stat
            label={`Blocked, last ${DAYS} days`}
            value={form.blockedCount}
            hint="Requests refused by a spam layer (403 BLOCKED, 429 RATE_LIMITED); none of them was stored."
          />
          <Stat label={`Last ${DAYS} days`} value={recent?.total} />
          <Stat
            label="Last received"
            value={
              form.lastSubmissionAt === undefined
                ? undefined
                : form.lastSubmissionAt
                  ? formatDateTime(form.lastSubmissionAt)
                  : 'Never'
            }
          />
        </dl>
      </Section>
      <Section title="Activity">
        {stats.isPending ? <p role="status">Loading activity…</p> : null}
        {stats.isError ? <Notice tone="error">Activity is not available: {describeError(stats.error)}</Notice> : null}
        {stats.data ? (
          <SubmissionsChart data={stats.data.data} title={`Submissions per day, last ${DAYS} days (UTC)`} />
        ) : null}
      </Section>
    </div>
  );
}

function Stat({ label, value, hint }: { label: string; value: number | string | undefined; hint?: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" title={hint}>
      <dt className="text-sm text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className={typeof value === 'number' ? 'text-xl font-semibold' : 'font-semibold break-words'}>
        {typeof value === 'number' ? value.toLocaleString() : (value ?? '—')}
      </dd>
    </div>
  );
}
