import { formatDay } from '../../lib/format.ts';
import type { DailyCount } from './forms.queries.ts';

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;
const LEGEND = [
  ['Not spam', 'bg-brand-600 dark:bg-brand-300'],
  ['Spam', 'bg-amber-500'],
  ['Blocked', 'bg-zinc-400 dark:bg-zinc-500'],
] as const;

/**
 * Submissions per day as stacked SVG bars (not spam below, spam above, then the requests a spam layer blocked: never
 * stored, so not in the total), with the numbers in a visually hidden table for screen readers (ADR 0021). Every
 * day is a bar, zeros included.
 */
export function SubmissionsChart({ data, title }: { data: DailyCount[]; title: string }) {
  const max = Math.max(1, ...data.map((d) => d.total + d.blocked));
  const barWidth = data.length > 0 ? WIDTH / data.length : WIDTH;
  const scale = (n: number) => (n / max) * (HEIGHT - 4);
  const first = data[0];
  const last = data[data.length - 1];
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <span className="font-medium">{title}</span>
        <span className="flex gap-3 text-zinc-600 dark:text-zinc-400">
          {LEGEND.map(([label, color]) => (
            <span key={label} className="flex items-center gap-1">
              <span aria-hidden="true" className={`inline-block size-3 rounded-sm ${color}`} />
              {label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg
        aria-hidden="true"
        data-testid="submissions-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        className="h-40 w-full rounded-md bg-zinc-50 dark:bg-zinc-900"
      >
        {data.map((d, i) => {
          const ham = scale(d.total - d.spam);
          const spam = scale(d.spam);
          const blocked = scale(d.blocked);
          const x = i * barWidth + GAP / 2;
          const w = Math.max(1, barWidth - GAP);
          return (
            <g key={d.day} data-day={d.day}>
              <title>{`${formatDay(d.day)}: ${d.total} (${d.spam} spam), ${d.blocked} blocked`}</title>
              <rect x={x} y={HEIGHT - ham} width={w} height={ham} className="fill-brand-600 dark:fill-brand-300" />
              <rect x={x} y={HEIGHT - ham - spam} width={w} height={spam} className="fill-amber-500" />
              <rect
                x={x}
                y={HEIGHT - ham - spam - blocked}
                width={w}
                height={blocked}
                className="fill-zinc-400 dark:fill-zinc-500"
              />
            </g>
          );
        })}
      </svg>
      {first && last ? (
        <div aria-hidden="true" className="flex justify-between text-xs text-zinc-600 dark:text-zinc-400">
          <span>{formatDay(first.day)}</span>
          <span>{formatDay(last.day)}</span>
        </div>
      ) : null}
      <ChartTable data={data} title={title} />
    </figure>
  );
}

/** The chart's numbers, for screen readers. */
function ChartTable({ data, title }: { data: DailyCount[]; title: string }) {
  return (
    <table className="sr-only">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Submissions</th>
          <th scope="col">Spam</th>
          <th scope="col">Blocked</th>
        </tr>
      </thead>
      <tbody>
        {data.map((d) => (
          <tr key={d.day}>
            <th scope="row">{d.day}</th>
            <td>{d.total}</td>
            <td>{d.spam}</td>
            <td>{d.blocked}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
