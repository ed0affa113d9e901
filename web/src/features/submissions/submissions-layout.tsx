import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, Outlet, useSearchParams } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { useForm } from '../forms/form-layout.tsx';
import { useCan } from '../organization/use-can.ts';
import { NO_SUBMISSIONS, SubmissionList } from './submission-list.tsx';
import {
  filtersOf,
  filtersToQuery,
  hasFilters,
  type SubmissionFilters,
  submissionsListQuery,
} from './submissions.queries.ts';
import { Filters } from './submissions-filters.tsx';

/**
 * `/dashboard/forms/{formSlug}/submissions`: the list (search, filters, cursor pages, selection and bulk actions)
 * beside the open submission. Filters live in the address, so a detail link, a reload and the export keep them. A
 * no-store form's page says first that it keeps only its submissions' metadata.
 */
export function SubmissionsLayout() {
  const form = useForm();
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersOf(search), [search]);
  // A new filter keeps the list (and its controls) on screen until its first page arrives.
  const list = useInfiniteQuery({ ...submissionsListQuery(form.id, filters), placeholderData: keepPreviousData });
  const items = useMemo(() => list.data?.pages.flatMap((p) => p.data) ?? [], [list.data]);
  const canManage = useCan().can({ form: ['update'] });
  // Absent (a server from before issue 31): the form stores its submissions.
  const noStore = form.settings.storeContent === false ? <NoStoreNotice /> : null;

  if (list.isPending) return <p role="status">Loading submissions…</p>;
  if (list.isError && !hasFilters(filters)) return <Notice tone="error">{describeError(list.error)}</Notice>;
  if (items.length === 0 && !hasFilters(filters) && !list.isError) {
    return (
      <section className="flex flex-col gap-2">
        {noStore}
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
    <div className="flex flex-col gap-4">
      {noStore}
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
    </div>
  );
}

/** A no-store form (issue 31): what it keeps of its submissions, and where that is changed. */
function NoStoreNotice() {
  return (
    <Notice>
      This form doesn't store submissions: they are delivered, then only their time, spam verdict and delivery outcomes
      are kept.{' '}
      <Link to="../settings" relative="path" className="text-brand-700 underline dark:text-brand-300">
        Storage settings
      </Link>
    </Notice>
  );
}
