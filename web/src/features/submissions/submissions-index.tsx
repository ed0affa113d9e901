import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { useForm } from '../forms/form-layout.tsx';
import { filtersOf, submissionsListQuery } from './submissions.queries.ts';

/**
 * `/dashboard/forms/{formSlug}/submissions/`: opens the newest submission (of the filtered list, if filtered). The
 * layout above says when there is none.
 */
export function SubmissionsIndexScreen() {
  const form = useForm();
  const [search] = useSearchParams();
  const { search: searchString } = useLocation();
  const filters = useMemo(() => filtersOf(search), [search]);
  const list = useInfiniteQuery(submissionsListQuery(form.id, filters));
  const first = list.data?.pages[0]?.data[0];
  if (first) return <Navigate to={{ pathname: encodeURIComponent(first.id), search: searchString }} replace />;
  if (list.isPending) return null;
  return (
    <p className="hidden text-sm text-zinc-600 lg:block dark:text-zinc-400">Select a submission to see it here.</p>
  );
}
