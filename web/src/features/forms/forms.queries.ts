import type {
  CreateFormRequest,
  DailyCount,
  FormDto,
  FormRetentionDto,
  FormStatsDto,
  FormWithCountsDto,
  UpdateFormRequest,
} from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';
import type { SpamSettingsRequest } from '../spam/spam-settings.ts';

/* Every forms call of the dashboard; the shapes are the API's own (`@formgate/contracts`). */

export type { DailyCount, FormDto, FormRetentionDto, FormWithCountsDto };

export const formsKeys = {
  all: ['forms'] as const,
  list: () => [...formsKeys.all, 'list'] as const,
  bySlug: (slug: string) => [...formsKeys.all, 'by-slug', slug] as const,
  stats: (formId: string, days: number) => [...formsKeys.all, formId, 'stats', days] as const,
  /** Every form's retention in force (a change of the organization's default refreshes them all). */
  retentions: () => [...formsKeys.all, 'retention'] as const,
  retention: (formId: string) => [...formsKeys.retentions(), formId] as const,
};

const formPath = (formId: string) => `/api/v1/forms/${encodeURIComponent(formId)}`;

/** The active organization's forms (the sidebar lists them by name). */
export const formsListQuery = () =>
  queryOptions({
    queryKey: formsKeys.list(),
    queryFn: async () => (await apiFetch<{ data: FormWithCountsDto[] }>('/api/v1/forms')).data,
  });

/** The form of a slug, or `null` when the organization has none by that slug. */
export const formBySlugQuery = (formSlug: string) =>
  queryOptions({
    queryKey: formsKeys.bySlug(formSlug),
    queryFn: async () =>
      (await apiFetch<{ data: FormWithCountsDto[] }>(`/api/v1/forms?slug=${encodeURIComponent(formSlug)}`)).data[0] ??
      null,
  });

/** Submissions (and blocked requests) per UTC day over the last `days` days, zeros filled in. */
export const formStatsQuery = (formId: string, days = 30) =>
  queryOptions({
    queryKey: formsKeys.stats(formId, days),
    queryFn: async () => {
      const stats = await apiFetch<FormStatsDto>(`${formPath(formId)}/stats?days=${days}`);
      return { ...stats, data: fillDays(stats.data, days, stats.to) };
    },
  });

/**
 * The retention in force for a form (its own, the organization's default or the plan's maximum) and when its oldest
 * submission goes (issue 31).
 */
export const formRetentionQuery = (formId: string) =>
  queryOptions({
    queryKey: formsKeys.retention(formId),
    queryFn: () => apiFetch<FormRetentionDto>(`${formPath(formId)}/retention`),
  });

const DAY_MS = 86_400_000;

/**
 * The `days` UTC days ending with `lastDay` (`YYYY-MM-DD`), oldest first, each with its counts or zeros. The server
 * already fills the gaps; this keeps the chart right if it answers only the days that had submissions.
 */
export function fillDays(
  counts: (Omit<DailyCount, 'blocked'> & { blocked?: number })[],
  days: number,
  lastDay: string,
): DailyCount[] {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(end - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    const c = byDay.get(day);
    return { day, total: c?.total ?? 0, spam: c?.spam ?? 0, blocked: c?.blocked ?? 0 };
  });
}

/** `POST /api/v1/forms` → the new form (201). */
export const createForm = (body: CreateFormRequest) =>
  apiFetch<FormWithCountsDto>('/api/v1/forms', { method: 'POST', json: body });

/** `PATCH /api/v1/forms/{formId}` → the updated form. The slug cannot be changed (not in `UpdateFormRequest`). */
export const updateForm = (formId: string, body: UpdateFormRequest) =>
  apiFetch<FormDto>(formPath(formId), { method: 'PATCH', json: body });

/**
 * `PATCH /api/v1/forms/{formId}` with only `settings.spam`: the form's whole set of overrides (the forms service
 * replaces `spam` as a whole; an absent key falls back to the organization's default), `null` for none. A captcha
 * without `secret` keeps the stored secret.
 */
export const updateFormSpam = (formId: string, spam: SpamSettingsRequest | null) =>
  apiFetch<FormDto>(formPath(formId), { method: 'PATCH', json: { settings: { spam } } });

/** `DELETE /api/v1/forms/{formId}` → 204 (pending API); the form, its submissions and files go. */
export const deleteForm = (formId: string) => apiFetch<void>(formPath(formId), { method: 'DELETE' });

/** The public endpoint of a form as a full URL on this instance (`/f/{key}` on the page's origin). */
export const endpointUrl = (form: Pick<FormDto, 'endpoint'>, origin = window.location.origin) =>
  new URL(form.endpoint, origin).toString();
