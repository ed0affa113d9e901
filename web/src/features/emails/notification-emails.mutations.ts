import type { NotificationEmailDto } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import type { ScreenStep } from '../../lib/screen-step.ts';
import {
  addNotificationEmail,
  notificationEmailsKeys,
  removeNotificationEmail,
} from './notification-emails.queries.ts';

/** Adds an address, or sends its verification link again; the screen's step runs after the refresh. */
export function useAddNotificationEmail(step: ScreenStep<NotificationEmailDto, string> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => addNotificationEmail(email),
    onSuccess: async (item, email) => {
      toast.success(item.verified ? 'Email verified' : 'Verification email sent');
      await queryClient.invalidateQueries({ queryKey: notificationEmailsKeys.all });
      step.onSuccess?.(item, email);
    },
  });
}

export function useRemoveNotificationEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => removeNotificationEmail(id),
    onSuccess: async () => {
      toast.success('Notification email removed');
      await queryClient.invalidateQueries({ queryKey: notificationEmailsKeys.all });
    },
  });
}
