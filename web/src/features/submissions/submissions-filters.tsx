import { DropdownMenu } from 'radix-ui';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { MENU_ITEM, MenuPopup } from '../../components/menu.tsx';
import { Button } from '../../components/ui.tsx';
import { useForm } from '../forms/form-layout.tsx';
import { useExportSubmissions } from './submissions.mutations.ts';
import { hasFilters, type SubmissionFilters } from './submissions.queries.ts';

/** Search, the spam/held/date filters, "Clear filters", and the export of the list as filtered. */
export function Filters(props: {
  filters: SubmissionFilters;
  onChange: (f: SubmissionFilters) => void;
  formId: string;
}) {
  const { filters, onChange } = props;
  const [q, setQ] = useState(filters.q ?? '');
  useEffect(() => setQ(filters.q ?? ''), [filters.q]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange({ ...filters, q: q.trim() || undefined });
  };
  const field = { filters, onChange };
  return (
    <div className="flex flex-col gap-2">
      <search>
        <form onSubmit={submit} className="flex gap-2">
          <label htmlFor="submission-search" className="sr-only">
            Search submissions
          </label>
          <input
            id="submission-search"
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            placeholder="Search values"
            maxLength={200}
            className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
          />
          <Button type="submit" variant="secondary" className="px-3 py-1.5">
            Search
          </Button>
        </form>
      </search>
      <fieldset className="grid grid-cols-2 gap-2 text-sm">
        <legend className="sr-only">Filters</legend>
        <FilterField {...field} name="spam" label="Spam" options={SPAM_OPTIONS} />
        <FilterField {...field} name="held" label="Held" options={HELD_OPTIONS} />
        <FilterField {...field} name="from" label="From" />
        <FilterField {...field} name="to" label="Before" />
      </fieldset>
      <div className="flex flex-wrap items-center gap-2">
        {hasFilters(filters) ? (
          <Button variant="ghost" className="px-2 py-1 text-sm" onClick={() => onChange({})}>
            Clear filters
          </Button>
        ) : null}
        <ExportMenu formId={props.formId} filters={filters} />
      </div>
    </div>
  );
}

const SPAM_OPTIONS: [string, string][] = [
  ['', 'All'],
  ['true', 'Spam only'],
  ['false', 'Not spam'],
];
const HELD_OPTIONS: [string, string][] = [
  ['', 'All'],
  ['true', 'Held only'],
  ['false', 'Not held'],
];

/** One filter: a select of `options`, or without them a date; empty means "not filtered". */
function FilterField(props: {
  filters: SubmissionFilters;
  onChange: (f: SubmissionFilters) => void;
  name: 'spam' | 'held' | 'from' | 'to';
  label: string;
  options?: [string, string][];
}) {
  const { filters, name } = props;
  const control =
    'rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900';
  const set = (value: string) => props.onChange({ ...filters, [name]: value || undefined } as SubmissionFilters);
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id}>{props.label}</label>
      {props.options ? (
        <select id={id} className={control} value={filters[name] ?? ''} onChange={(e) => set(e.target.value)}>
          {props.options.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type="date"
          className={control}
          value={filters[name] ?? ''}
          onChange={(e) => set(e.target.value)}
        />
      )}
    </div>
  );
}

/** Why a no-store form's export is disabled (issue 31). */
export const NOTHING_TO_EXPORT = "This form doesn't store submissions, so there is nothing to export.";

/**
 * Export the list as it is filtered, as a CSV or JSON download. A no-store form (issue 31) keeps no content: its
 * button is disabled, the reason beside it.
 */
function ExportMenu({ formId, filters }: { formId: string; filters: SubmissionFilters }) {
  const form = useForm();
  const run = useExportSubmissions(formId, filters, (format) => `${form.slug}-submissions.${format}`);
  const reasonId = useId();
  if (form.settings.storeContent === false) {
    return (
      <div className="ml-auto flex flex-col items-end gap-1">
        <Button variant="secondary" className="px-3 py-1.5" disabled aria-describedby={reasonId}>
          Export
        </Button>
        <p id={reasonId} className="text-right text-xs text-zinc-600 dark:text-zinc-400">
          {NOTHING_TO_EXPORT}
        </p>
      </div>
    );
  }
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="secondary" className="ml-auto px-3 py-1.5" disabled={run.isPending}>
          {run.isPending ? 'Exporting…' : 'Export'}
        </Button>
      </DropdownMenu.Trigger>
      <MenuPopup align="end" className="min-w-40">
        <DropdownMenu.Item className={MENU_ITEM} onSelect={() => run.mutate('csv')}>
          CSV (spreadsheets)
        </DropdownMenu.Item>
        <DropdownMenu.Item className={MENU_ITEM} onSelect={() => run.mutate('json')}>
          JSON
        </DropdownMenu.Item>
      </MenuPopup>
    </DropdownMenu.Root>
  );
}
