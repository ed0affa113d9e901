import { useId } from 'react';
import type { Interval } from './billing.queries.ts';

const OPTIONS: { value: Interval; label: string }[] = [
  { value: 'month', label: 'Monthly' },
  { value: 'year', label: 'Yearly' },
];

/**
 * Monthly or yearly prices: two radio buttons drawn as a segmented control (arrow keys move between them, and a
 * screen reader announces the group by its legend).
 */
export function IntervalSwitch(props: {
  value: Interval;
  onChange: (value: Interval) => void;
  /** Shown beside "Yearly", e.g. "save up to 17%". */
  yearlyNote?: string | undefined;
  legend?: string;
}) {
  const name = useId();
  return (
    <fieldset className="flex flex-wrap items-center gap-3">
      <legend className="sr-only">{props.legend ?? 'Billing interval'}</legend>
      <div className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700">
        {OPTIONS.map((option) => (
          <label
            key={option.value}
            className="cursor-pointer rounded px-3 py-1.5 text-sm font-medium text-zinc-700 has-checked:bg-brand-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-brand-600 dark:text-zinc-300"
          >
            <input
              type="radio"
              className="sr-only"
              name={name}
              value={option.value}
              checked={props.value === option.value}
              onChange={() => props.onChange(option.value)}
            />
            {option.label}
          </label>
        ))}
      </div>
      {props.yearlyNote ? <span className="text-sm text-zinc-600 dark:text-zinc-400">{props.yearlyNote}</span> : null}
    </fieldset>
  );
}
