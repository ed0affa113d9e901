import { useQuery } from '@tanstack/react-query';
import { type EmailQuota, emailQuotaQuery, usagePercent } from './billing.queries.ts';

/**
 * A quota used this period (emails sent by default); the bar's width is used / max as a percentage. `size="large"`
 * is the billing screen's version: a larger label and bar, and the numbers announced as a meter.
 */
export function UsageBar({
  quota,
  label = 'Emails sent',
  size = 'small',
}: {
  quota: EmailQuota;
  label?: string;
  size?: 'small' | 'large';
}) {
  const percent = usagePercent(quota);
  const large = size === 'large';
  return (
    <div className={large ? 'flex flex-col gap-2' : 'flex flex-col gap-1.5 px-3'}>
      <div
        className={
          large
            ? 'flex flex-wrap justify-between gap-x-3 text-sm'
            : 'flex justify-between text-xs text-zinc-600 dark:text-zinc-400'
        }
      >
        <span className={large ? 'font-medium' : undefined}>{label}</span>
        <span>
          {quota.used.toLocaleString('en')} / {quota.max.toLocaleString('en')}
        </span>
      </div>
      <div
        aria-hidden="true"
        className={
          large
            ? 'h-3 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800'
            : 'h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800'
        }
      >
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
