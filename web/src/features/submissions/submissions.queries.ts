import type {
  BulkSubmissionsRequest,
  BulkSubmissionsResultDto,
  FileLinkDto,
  ListEnvelope,
  SubmissionDto,
  UpdateSubmissionRequest,
} from '@formgate/contracts';
import { type InfiniteData, infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { apiDownload, apiFetch } from '../../lib/api.ts';
import { formsKeys } from '../forms/forms.queries.ts';

/* Every submissions call of the dashboard; the request and answer shapes are the API's own (`@formgate/contracts`). */

export { MAX_BULK_IDS } from '@formgate/contracts';
export type { BulkSubmissionsRequest, UpdateSubmissionRequest };

/**
 * A submission as the API answers it; `origin` and `referer` are null when unknown (shown as text, never as links).
 * `spamReasons` are ingest's reasons (issue 14), shadow ones marked.
 */
export type Submission = SubmissionDto;

/** The list's filters, as in the page's address and the API's query (pending API). */
export interface SubmissionFilters {
  q?: string;
  spam?: 'true' | 'false';
  held?: 'true' | 'false';
  /** `YYYY-MM-DD`, inclusive. */
  from?: string;
  /** `YYYY-MM-DD`, exclusive. */
  to?: string;
}

const FILTER_KEYS = ['q', 'spam', 'held', 'from', 'to'] as const;

/** The filters of a search string (`?spam=true&q=…`); anything else is ignored, bad booleans dropped. */
export function filtersOf(search: URLSearchParams): SubmissionFilters {
  const filters: SubmissionFilters = {};
  const q = search.get('q')?.trim();
  if (q) filters.q = q;
  for (const key of ['spam', 'held'] as const) {
    const v = search.get(key);
    if (v === 'true' || v === 'false') filters[key] = v;
  }
  for (const key of ['from', 'to'] as const) {
    const v = search.get(key);
    if (v && /^\d{4}-\d{2}-\d{2}$/.test(v)) filters[key] = v;
  }
  return filters;
}

/** The query string of some filters (without `?`), in a stable order. */
export function filtersToQuery(filters: SubmissionFilters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const v = filters[key];
    if (v) params.set(key, v);
  }
  return params.toString();
}

export const hasFilters = (filters: SubmissionFilters) => FILTER_KEYS.some((k) => filters[k]);

export type ExportFormat = 'csv' | 'json';

export const submissionsKeys = {
  all: (formId: string) => [...formsKeys.all, formId, 'submissions'] as const,
  lists: (formId: string) => [...submissionsKeys.all(formId), 'list'] as const,
  list: (formId: string, filters: SubmissionFilters) => [...submissionsKeys.lists(formId), filters] as const,
  detail: (formId: string, id: string) => [...submissionsKeys.all(formId), 'detail', id] as const,
};

const base = (formId: string) => `/api/v1/forms/${encodeURIComponent(formId)}/submissions`;
const one = (formId: string, id: string) => `${base(formId)}/${encodeURIComponent(id)}`;

export const PAGE_SIZE = 25;

/** How often a form's unfiltered list is asked again while it is empty. */
export const EMPTY_LIST_REFRESH_MS = 3_000;

/**
 * The list, newest first, a page of `PAGE_SIZE` at a time (`nextCursor` → "Load more"). While an unfiltered list is
 * empty it is asked again every `EMPTY_LIST_REFRESH_MS`: a form's first submission reaches the list a moment after
 * its 2xx (once the read model has it), and appears without a reload.
 */
export const submissionsListQuery = (formId: string, filters: SubmissionFilters) =>
  infiniteQueryOptions({
    queryKey: submissionsKeys.list(formId, filters),
    refetchInterval: ({ state }: { state: { data?: InfiniteData<ListEnvelope<Submission>> } }) =>
      !hasFilters(filters) && state.data?.pages[0]?.data.length === 0 ? EMPTY_LIST_REFRESH_MS : false,
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams(filtersToQuery(filters));
      params.set('limit', String(PAGE_SIZE));
      if (pageParam) params.set('cursor', pageParam);
      return apiFetch<ListEnvelope<Submission>>(`${base(formId)}?${params}`);
    },
    getNextPageParam: (last) => last.nextCursor,
  });

export const submissionQuery = (formId: string, id: string) =>
  queryOptions({
    queryKey: submissionsKeys.detail(formId, id),
    queryFn: () => apiFetch<Submission>(one(formId, id)),
  });

/** Marks one submission spam or not spam → the updated submission (pending API). */
export const markSubmission = (formId: string, id: string, body: UpdateSubmissionRequest) =>
  apiFetch<Submission>(one(formId, id), { method: 'PATCH', json: body });

/** Deletes one submission → 204 (pending API). */
export const deleteSubmission = (formId: string, id: string) => apiFetch<void>(one(formId, id), { method: 'DELETE' });

/** One action on up to `MAX_BULK_IDS` submissions (pending API). */
export const bulkSubmissions = (formId: string, body: BulkSubmissionsRequest) =>
  apiFetch<BulkSubmissionsResultDto>(`${base(formId)}/bulk`, { method: 'POST', json: body });

/** A short-lived link to one file of a submission (pending API); `fileId` is the file's `blobKey`. */
export const fileLink = (formId: string, id: string, fileId: string) =>
  apiFetch<FileLinkDto>(`${one(formId, id)}/files/${encodeURIComponent(fileId)}/link`);

/** Every submission matching `filters`, as a CSV or JSON attachment (pending API). */
export const exportSubmissions = (formId: string, filters: SubmissionFilters, format: ExportFormat) => {
  const params = new URLSearchParams(filtersToQuery(filters));
  params.set('format', format);
  return apiDownload(`${base(formId)}/export?${params}`);
};

/**
 * A link the API handed out, only if it is this site's own or plain http(s): never `javascript:` or `data:`, even if
 * a server were to answer one.
 */
export function safeLink(url: string, origin = window.location.origin): string | null {
  try {
    const parsed = new URL(url, origin);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}
