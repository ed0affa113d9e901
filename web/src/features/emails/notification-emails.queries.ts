import type { NotificationEmailDto } from '@formgate/contracts';
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '../../lib/api.ts';

export const notificationEmailsKeys = { all: ['notification-emails'] as const };

/** The organization's notification addresses, oldest first (`GET /api/v1/notification-emails`). */
export const notificationEmailsQuery = () =>
  queryOptions({
    queryKey: notificationEmailsKeys.all,
    queryFn: async () => (await apiFetch<{ data: NotificationEmailDto[] }>('/api/v1/notification-emails')).data,
  });

/** Adds an address or re-sends its verification link; `verified` in the answer says whether a mail went out. */
export const addNotificationEmail = (email: string) =>
  apiFetch<NotificationEmailDto>('/api/v1/notification-emails', { method: 'POST', json: { email } });

export const removeNotificationEmail = (id: string) =>
  apiFetch<void>(`/api/v1/notification-emails/${encodeURIComponent(id)}`, { method: 'DELETE' });
