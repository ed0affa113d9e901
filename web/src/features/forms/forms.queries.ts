import type { Form, ListEnvelope, SubmissionDto } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

/** A form as `/api/v1/forms` answers it (`toFormDto` in the forms service). */
export type FormDto = Omit<Form, 'orgId' | 'version'> & { endpoint: string; submissionCount?: number };

export const formsKeys = {
  all: ['forms'] as const,
  list: () => [...formsKeys.all, 'list'] as const,
  bySlug: (slug: string) => [...formsKeys.all, 'by-slug', slug] as const,
  submissions: (formId: string, limit?: number) => [...formsKeys.all, formId, 'submissions', { limit }] as const,
};

/** The active organization's forms (the sidebar lists them by name). */
export const formsListQuery = () =>
  queryOptions({
    queryKey: formsKeys.list(),
    queryFn: async () => (await apiFetch<{ data: FormDto[] }>('/api/v1/forms')).data,
  });

/** The form of a slug, or `null` when the organization has none by that slug. */
export const formBySlugQuery = (formSlug: string) =>
  queryOptions({
    queryKey: formsKeys.bySlug(formSlug),
    queryFn: async () =>
      (await apiFetch<{ data: FormDto[] }>(`/api/v1/forms?slug=${encodeURIComponent(formSlug)}`)).data[0] ?? null,
  });

export const submissionsQuery = (formId: string, limit?: number) =>
  queryOptions({
    queryKey: formsKeys.submissions(formId, limit),
    queryFn: () =>
      apiFetch<ListEnvelope<SubmissionDto>>(
        `/api/v1/forms/${encodeURIComponent(formId)}/submissions${limit ? `?limit=${limit}` : ''}`,
      ),
  });
