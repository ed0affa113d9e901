import { billingPeriodBounds } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { billingUsageQuery, emailQuotaQuery, usagePercent } from '../../features/billing/billing.queries.ts';
import { siteQuery } from '../../features/site/site.queries.ts';
import { UsageBar } from './usage-meter.tsx';

const day = (isoDate: string) =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

/**
 * `/dashboard/billing`: the organization's plan and what it used this period. Changing plans (Stripe) arrives with
 * its own issue; until then the screen says so rather than showing buttons that do nothing.
 */
export function Component() {
  const usage = useQuery(billingUsageQuery());
  const emails = useQuery(emailQuotaQuery());
  const site = useQuery(siteQuery());
  const plan = site.data?.plans[0];
  const period = usage.data ? billingPeriodBounds(usage.data.period) : null;
  const over = [usage.data?.submissions, emails.data].some((q) => q && usagePercent(q) >= 100);
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">Billing</h1>
      <Panel title="Plan">
        {plan ? (
          <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-zinc-600 dark:text-zinc-400">Plan</dt>
              <dd className="font-medium">
                {plan.name}
                {plan.price ? ` · ${plan.price}` : ''}
              </dd>
            </div>
            <div>
              <dt className="text-zinc-600 dark:text-zinc-400">Submissions a month</dt>
              <dd className="font-medium">{plan.submissionsPerMonth.toLocaleString('en')}</dd>
            </div>
            <div>
              <dt className="text-zinc-600 dark:text-zinc-400">Emails a month</dt>
              <dd className="font-medium">{plan.emailsPerMonth.toLocaleString('en')}</dd>
            </div>
          </dl>
        ) : site.isPending ? (
          <p className="text-sm">Loading…</p>
        ) : (
          <Notice tone="error">The plan could not be loaded.</Notice>
        )}
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Every organization on this instance is on this plan. Upgrades, invoices and payment methods are not available
          yet.
        </p>
      </Panel>
      <Panel
        title="Usage this period"
        description={
          period ? `${day(period.start)} – ${day(period.end)} (UTC). Counts start again on the 1st.` : undefined
        }
      >
        {usage.isError || emails.isError ? <Notice tone="error">Usage could not be loaded.</Notice> : null}
        {usage.data ? <UsageBar size="large" label="Submissions" quota={usage.data.submissions} /> : null}
        {emails.data ? <UsageBar size="large" label="Emails sent" quota={emails.data} /> : null}
        {usage.isPending || emails.isPending ? <p className="text-sm">Loading…</p> : null}
        {over ? (
          <Notice>A quota is used up. Submissions over it are still accepted and stored as held: none is lost.</Notice>
        ) : null}
      </Panel>
    </div>
  );
}
