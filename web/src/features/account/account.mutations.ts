import type { ChangePasswordRequest, UpdateProfileRequest } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { sessionKey } from '../../lib/auth-invalidation.ts';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { accountKeys } from './account.queries.ts';

/* The signed-in person's own account, through better-auth (which refreshes the session by itself after
   update-user and delete-user); these hooks add the sessions list. A screen step runs before the toast. */

export function useUpdateName(step: ScreenStep<unknown, UpdateProfileRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async ({ name }: UpdateProfileRequest) => unwrap(await auth.updateUser({ name })),
    onSuccess: (data, values) => {
      step.onSuccess?.(data, values);
      toast.success('Name saved');
    },
  });
}

/** Changes the password (optionally signing the other sessions out); the sessions list is asked again. */
export function useChangePassword(step: ScreenStep<unknown, ChangePasswordRequest> = {}) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (values: ChangePasswordRequest) => unwrap(await auth.changePassword(values)),
    onSuccess: async (data, values) => {
      step.onSuccess?.(data, values);
      toast.success('Password changed');
      await queryClient.invalidateQueries({ queryKey: accountKeys.sessions });
    },
  });
}

function useRefreshSessions() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: accountKeys.sessions }),
      queryClient.invalidateQueries({ queryKey: sessionKey }),
    ]);
}

/** Signs one session out (by its token). */
export function useRevokeSession() {
  const { auth } = useServices();
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: async (token: string) => unwrap(await auth.revokeSession({ token })),
    onSuccess: async () => {
      toast.success('Session signed out');
      await refresh();
    },
  });
}

export function useRevokeOtherSessions() {
  const { auth } = useServices();
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: async () => unwrap(await auth.revokeOtherSessions()),
    onSuccess: async () => {
      toast.success('Signed out of your other sessions');
      await refresh();
    },
  });
}

/** Deletes the account (the password confirms it); the screen's step (leaving) runs after the toast. */
export function useDeleteAccount(step: ScreenStep<unknown, string> & { onSettled?: () => void } = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await auth.deleteUser({ password })),
    onSuccess: (data, password) => {
      toast.success('Your account was deleted');
      step.onSuccess?.(data, password);
    },
    onSettled: step.onSettled,
  });
}
