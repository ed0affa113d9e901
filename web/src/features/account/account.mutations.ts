import type { ChangePasswordRequest, TotpCodeRequest, UpdateProfileRequest } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { sessionKey } from '../../lib/auth-invalidation.ts';
import { passkeyCeremony } from '../../lib/passkeys.ts';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { accountKeys, type PasskeyNameRequest } from './account.queries.ts';

/* The signed-in person's own account, through better-auth (which refreshes the session by itself after
   update-user, delete-user and the two-factor calls that change it); these hooks add the sessions list. A screen
   step runs before the toast. */

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

/** Changes the password (the server signs the other sessions out); the sessions list is asked again. */
export function useChangePassword(step: ScreenStep<unknown, ChangePasswordRequest> = {}) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (values: ChangePasswordRequest) =>
      unwrap(await auth.changePassword({ ...values, revokeOtherSessions: true })),
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

/** What setting two-factor up hands out once: the authenticator app's `otpauth://` URI and the backup codes. */
export interface TwoFactorSetup {
  totpURI: string;
  backupCodes: string[];
}

/**
 * Starts setting two-factor up (the password confirms it). It is on only once a first code is confirmed
 * (`useConfirmTwoFactor`); the screen's step holds the URI and codes, which are never cached.
 */
export function useEnableTwoFactor(step: ScreenStep<TwoFactorSetup, string> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (password: string): Promise<TwoFactorSetup> => {
      const started = unwrap(await auth.twoFactor.enable({ password }));
      if (!('totpURI' in started)) throw new Error('Two-factor could not be set up. Try again.');
      return { totpURI: started.totpURI, backupCodes: started.backupCodes };
    },
    onSuccess: (data, password) => step.onSuccess?.(data, password),
  });
}

/**
 * Turns two-factor on with a first code from the app. better-auth then replaces the current session (the session is
 * asked again by itself); the screen's step runs before the toast, and the sessions list is asked again.
 */
export function useConfirmTwoFactor(step: ScreenStep<unknown, TotpCodeRequest> = {}) {
  const { auth } = useServices();
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: async ({ code }: TotpCodeRequest) => unwrap(await auth.twoFactor.verifyTotp({ code })),
    onSuccess: async (data, values) => {
      step.onSuccess?.(data, values);
      toast.success('Two-factor authentication is on');
      await refresh();
    },
  });
}

/** New backup codes (the password confirms it); the old ones stop working. The screen's step shows them once. */
export function useGenerateBackupCodes(step: ScreenStep<string[], string> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await auth.twoFactor.generateBackupCodes({ password })).backupCodes,
    onSuccess: (codes, password) => {
      step.onSuccess?.(codes, password);
      toast.success('New backup codes made: the old ones no longer work');
    },
  });
}

/** Turns two-factor off (the password confirms it); like turning it on, this replaces the current session. */
export function useDisableTwoFactor(step: { onSettled?: () => void } = {}) {
  const { auth } = useServices();
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await auth.twoFactor.disable({ password })),
    onSuccess: async () => {
      toast.success('Two-factor authentication is off');
      await refresh();
    },
    onSettled: step.onSettled,
  });
}

/** Signs out every session of the account, this one included; the screen's step (leaving) runs after the toast. */
export function useRevokeAllSessions(step: ScreenStep<unknown> = {}) {
  const { auth } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await auth.revokeSessions()),
    onSuccess: async (data) => {
      toast.success('Signed out everywhere');
      await queryClient.invalidateQueries({ queryKey: sessionKey });
      step.onSuccess?.(data, undefined);
    },
  });
}

function useRefreshPasskeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: accountKeys.passkeys });
}

/**
 * Adds a passkey named `name`: the browser asks the person to create it, then the server keeps its public key. A
 * refusal or a closed prompt rejects with a sentence saying so (`lib/passkeys.ts`). The list is asked again.
 */
export function useAddPasskey(step: ScreenStep<unknown, PasskeyNameRequest> = {}) {
  const { auth } = useServices();
  const refresh = useRefreshPasskeys();
  return useMutation({
    mutationFn: ({ name }: PasskeyNameRequest) =>
      passkeyCeremony('add', async () => unwrap(await auth.passkey.addPasskey({ name }))),
    onSuccess: async (data, values) => {
      step.onSuccess?.(data, values);
      toast.success('Passkey added');
      await refresh();
    },
  });
}

export function useRenamePasskey(id: string, step: ScreenStep<unknown, PasskeyNameRequest> = {}) {
  const { auth } = useServices();
  const refresh = useRefreshPasskeys();
  return useMutation({
    mutationFn: async ({ name }: PasskeyNameRequest) => unwrap(await auth.passkey.updatePasskey({ id, name })),
    onSuccess: async (data, values) => {
      step.onSuccess?.(data, values);
      toast.success('Passkey renamed');
      await refresh();
    },
  });
}

/** Removes a passkey (by its id): it no longer signs in. The device or password manager still holds it. */
export function useRemovePasskey() {
  const { auth } = useServices();
  const refresh = useRefreshPasskeys();
  return useMutation({
    mutationFn: async (id: string) => unwrap(await auth.passkey.deletePasskey({ id })),
    onSuccess: async () => {
      toast.success('Passkey removed');
      await refresh();
    },
  });
}
