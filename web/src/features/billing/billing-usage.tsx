import { billingPeriodBounds } from '@formgate/contracts';
import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { formsListQuery } from '../forms/forms.queries.ts';
import { type BillingUsage, formatStorageMb } from './billing.queries.ts';
import { longDay } from './billing-plans.tsx';
import { UsageBar } from './usage-meter.tsx';

const n = (value: number) => value.toLocaleString('en');
const plural = (count: number, one: string, many: string) => `${n(count)} ${count === 1 ? one : many}`;

/** Forms linked by name from the held notice; more are one link to the forms list. */
const HELD_FORM_LINKS = 5;

export function UsagePanel({ usage }: { usage: UseQueryResult<BillingUsage> }) {
  const data = usage.data;
  const period = data ? billingPeriodBounds(data.period) : null;
  const over = data ? data.submissions.used >= data.submissions.max || data.emails.used >= data.emails.max : false;
  return (
    <Panel
      title="Usage this period"
      description={
        period ? `${longDay(period.start)} – ${longDay(period.end)} (UTC). Counts start again on the 1st.` : undefined
      }
    >
      {usage.isError ? <Notice tone="error">Usage could not be loaded.</Notice> : null}
      {usage.isPending ? (
        <div aria-hidden="true" className="flex min-h-24 flex-col gap-4">
          <div className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
          <div className="h-8 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
        </div>
      ) : null}
      {data ? (
        <>
          <UsageBar size="large" label="Submissions" quota={data.submissions} />
          <UsageBar size="large" label="Emails sent" quota={data.emails} />
          {data.storage ? (
            data.storage.maxMb === null ? (
              <p className="text-sm">
                <span className="font-medium">File storage</span>: {formatStorageMb(data.storage.usedMb)} used (no
                limit)
              </p>
            ) : (
              <UsageBar
                size="large"
                label="File storage (MB)"
                quota={{ used: data.storage.usedMb, max: data.storage.maxMb }}
              />
            )
          ) : null}
          {data.storage && data.storage.maxMb !== null && data.storage.usedMb >= data.storage.maxMb ? (
            <Notice tone="error">
              File storage is full: forms refuse submissions with files until you delete some or upgrade. Submissions
              without files are still accepted.
            </Notice>
          ) : null}
          {data.submissions.held > 0 ? <HeldNotice held={data.submissions.held} /> : null}
          {data.emails.deferred > 0 ? (
            <Notice>
              {plural(data.emails.deferred, 'notification email is', 'notification emails are')} deferred: they are sent
              after an upgrade or when the period ends, never dropped.
            </Notice>
          ) : null}
          {over && data.submissions.held === 0 && data.emails.deferred === 0 ? (
            <Notice>
              A quota is used up. Submissions over it are still accepted and stored as held: none is lost.
            </Notice>
          ) : null}
        </>
      ) : null}
    </Panel>
  );
}

/** How many submissions are held, and links to the forms' held submissions. */
function HeldNotice({ held }: { held: number }) {
  const forms = useQuery(formsListQuery());
  return (
    <Notice>
      <p>
        {plural(held, 'submission is', 'submissions are')} held until you upgrade or the period ends. Nothing is lost:
        they appear, are notified and counted as soon as one happens.
      </p>
      {forms.data && forms.data.length > 0 ? (
        <p className="mt-1">
          See them in:{' '}
          {forms.data.slice(0, HELD_FORM_LINKS).map((form, i) => (
            <span key={form.id}>
              {i > 0 ? ', ' : ''}
              <Link
                to={`/dashboard/forms/${encodeURIComponent(form.slug)}/submissions?held=true`}
                aria-label={`Held submissions of ${form.name}`}
                className="font-medium underline"
              >
                {form.name}
              </Link>
            </span>
          ))}
          {forms.data.length > HELD_FORM_LINKS ? (
            <>
              {' and '}
              <Link to="/dashboard/forms" className="font-medium underline">
                {plural(forms.data.length - HELD_FORM_LINKS, 'other form', 'other forms')}
              </Link>
            </>
          ) : null}
        </p>
      ) : null}
    </Notice>
  );
}
