import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useMemo, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ConfirmDialog } from '../../../../../components/confirm-dialog.tsx';
import { Button, cx, Notice } from '../../../../../components/ui.tsx';
import { useBulkSubmissions } from '../../../../../features/forms/submissions.mutations.ts';
import {
  type BulkSubmissionsRequest,
  filtersOf,
  filtersToQuery,
  hasFilters,
  type Submission,
  type SubmissionFilters,
  submissionsListQuery,
} from '../../../../../features/forms/submissions.queries.ts';
import { useCan } from '../../../../../features/organization/use-can.ts';
import { describeError } from '../../../../../lib/api.ts';
import { formatDateTime } from '../../../../../lib/format.ts';
import { useForm } from '../form-layout.tsx';
import { Filters } from './submissions-filters.tsx';

export const NO_SUBMISSIONS = 'No submissions, follow the examples to setup your form.';

/**
 * `/dashboard/forms/{formSlug}/submissions`: the list (search, filters, cursor pages, selection and bulk actions)
 * beside the open submission. Filters live in the address, so a detail link, a reload and the export keep them.
 */
export function Component() {
  const form = useForm();
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersOf(search), [search]);
  // A new filter keeps the list (and its controls) on screen until its first page arrives.
  const list = useInfiniteQuery({ ...submissionsListQuery(form.id, filters), placeholderData: keepPreviousData });
  const items = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const canManage = useCan().can({ form: ['update'] });

  if (list.isPending) return <p role="status">Loading submissions…</p>;
  if (list.isError && !hasFilters(filters)) return <Notice tone="error">{describeError(list.error)}</Notice>;
  if (items.length === 0 && !hasFilters(filters) && !list.isError) {
    return (
      <section className="flex flex-col gap-2">
        <p>{NO_SUBMISSIONS}</p>
        <p>
          <Link to="../example" relative="path" className="text-brand-700 underline dark:text-brand-300">
            See the examples
          </Link>
        </p>
      </section>
    );
  }

  const setFilters = (next: SubmissionFilters) => setSearch(new URLSearchParams(filtersToQuery(next)));
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(18rem,24rem)_1fr]">
      <section aria-label="Submissions" className="flex min-w-0 flex-col gap-3">
        <Filters filters={filters} onChange={setFilters} formId={form.id} />
        {list.isError ? <Notice tone="error">{describeError(list.error)}</Notice> : null}
        <SubmissionList
          formId={form.id}
          items={items}
          canManage={canManage}
          hasMore={list.hasNextPage}
          loadingMore={list.isFetchingNextPage}
          onLoadMore={() => list.fetchNextPage()}
          filtered={hasFilters(filters)}
        />
      </section>
      <div className="min-w-0">
        <Outlet context={form} />
      </div>
    </div>
  );
}

/** A one-line summary of a submission: its first values, as text. */
export function summaryOf(s: Submission): string {
  const text = s.fields
    .map((f) => f.value.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .slice(0, 2)
    .join(' · ');
  if (text) return text.length > 120 ? `${text.slice(0, 119)}…` : text;
  return s.files.length > 0 ? `${s.files.length} file(s)` : '(empty)';
}

function SubmissionList(props: {
  formId: string;
  items: Submission[];
  canManage: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  filtered: boolean;
}) {
  const { formId, items } = props;
  const { search } = useLocation();
  const { submissionId } = useParams();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Forget what is no longer listed (deleted, or filtered away).
  useEffect(() => {
    setSelected((prev) => {
      const listed = new Set(items.map((i) => i.id));
      const next = new Set([...prev].filter((id) => listed.has(id)));
      return next.size === prev.size ? prev : next;
    });
  }, [items]);

  const bulk = useBulkSubmissions(formId, {
    onSuccess: ({ action, ids }) => {
      setSelected(new Set());
      if (action === 'delete' && submissionId && ids.includes(submissionId)) navigate({ pathname: '.', search });
    },
  });
  const act = (action: BulkSubmissionsRequest['action']) => bulk.mutate({ action, ids: [...selected] });

  const allSelected = items.length > 0 && items.every((i) => selected.has(i.id));
  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // Up and down arrows move between the rows' links.
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('a[data-row-link]')];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    e.preventDefault();
    links[Math.min(links.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)))]?.focus();
  };

  return (
    <div className="flex flex-col gap-2">
      {props.canManage && items.length > 0 ? (
        <div className="flex flex-wrap items-center gap-2 rounded-md bg-zinc-50 px-2 py-1.5 text-sm dark:bg-zinc-900">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              checked={allSelected}
              onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((i) => i.id)))}
            />
            {selected.size > 0 ? `${selected.size} selected` : 'Select all'}
          </label>
          {selected.size > 0 ? (
            <fieldset aria-label="With the selected submissions" className="ml-auto flex flex-wrap gap-1">
              <Button variant="ghost" className="px-2 py-1" disabled={bulk.isPending} onClick={() => act('spam')}>
                Mark spam
              </Button>
              <Button variant="ghost" className="px-2 py-1" disabled={bulk.isPending} onClick={() => act('not-spam')}>
                Not spam
              </Button>
              <ConfirmDialog
                trigger={
                  <Button
                    variant="ghost"
                    className="px-2 py-1 text-red-700 dark:text-red-400"
                    disabled={bulk.isPending}
                  >
                    Delete
                  </Button>
                }
                title={`Delete ${selected.size} ${selected.size === 1 ? 'submission' : 'submissions'}?`}
                description="Their fields and files are deleted for good."
                confirmLabel="Delete"
                onConfirm={() => act('delete')}
              />
            </fieldset>
          ) : null}
        </div>
      ) : null}
      {items.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {props.filtered ? 'No submissions match these filters.' : NO_SUBMISSIONS}
        </p>
      ) : null}
      <ul
        aria-label="Submissions, newest first"
        onKeyDown={onKeyDown}
        className="flex max-h-96 flex-col divide-y divide-zinc-200 overflow-y-auto rounded-md border border-zinc-200 lg:max-h-[70vh] dark:divide-zinc-800 dark:border-zinc-800"
      >
        {items.map((s) => (
          <li key={s.id} className="flex items-start gap-2 px-2 py-2">
            {props.canManage ? (
              <input
                type="checkbox"
                className="mt-1"
                aria-label={`Select the submission of ${formatDateTime(s.createdAt)}`}
                checked={selected.has(s.id)}
                onChange={() => toggle(s.id)}
              />
            ) : null}
            <NavLink
              data-row-link
              to={{ pathname: encodeURIComponent(s.id), search }}
              className={({ isActive }) =>
                cx(
                  'flex min-w-0 flex-1 flex-col gap-0.5 rounded px-1 py-0.5',
                  isActive ? 'bg-brand-50 dark:bg-zinc-800' : 'hover:bg-zinc-50 dark:hover:bg-zinc-900',
                )
              }
            >
              <span className="truncate text-sm">{summaryOf(s)}</span>
              <span className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
                <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
                {s.spam ? <Badge tone="spam">Spam</Badge> : null}
                {s.held ? <Badge tone="held">Held</Badge> : null}
              </span>
            </NavLink>
          </li>
        ))}
      </ul>
      {props.hasMore ? (
        <Button variant="secondary" onClick={props.onLoadMore} disabled={props.loadingMore}>
          {props.loadingMore ? 'Loading…' : 'Load more'}
        </Button>
      ) : null}
    </div>
  );
}

export function Badge({ tone, children }: { tone: 'spam' | 'held'; children: string }) {
  return (
    <span
      className={cx(
        'rounded px-1.5 py-0.5 text-xs font-medium',
        tone === 'spam'
          ? 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200'
          : 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200',
      )}
    >
      {children}
    </span>
  );
}
