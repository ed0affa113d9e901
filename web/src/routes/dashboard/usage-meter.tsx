import { useQuery } from '@tanstack/react-query';
import { type EmailQuota, emailQuotaQuery, usagePercent } from '../../features/billing/billing.queries.ts';

/** Emails sent this period; the bar's width is used / max as a percentage. */
export function UsageBar({ quota }: { quota: EmailQuota }) {
  const percent = usagePercent(quota);
  return (
    <div className="flex flex-col gap-1.5 px-3">
      <div className="flex justify-between text-xs text-zinc-600 dark:text-zinc-400">
        <span>Emails sent</span>
        <span>
          {quota.used.toLocaleString('en')} / {quota.max.toLocaleString('en')}
        </span>
      </div>
      <div aria-hidden="true" className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800">
        <div
          data-testid="usage-bar-fill"
          className={
            percent >= 100 ? 'h-full bg-red-600' : percent >= 80 ? 'h-full bg-amber-500' : 'h-full bg-brand-600'
          }
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}

export function UsageMeter() {
  const quota = useQuery(emailQuotaQuery());
  return quota.data ? <UsageBar quota={quota.data} /> : null;
}
