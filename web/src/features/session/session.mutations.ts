import type { BackupCodeRequest, SignInRequest, SignUpRequest, TotpCodeRequest } from '@formgate/contracts';
import { useMutation } from '@tanstack/react-query';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import { passkeyCeremony } from '../../lib/passkeys.ts';
import type { ScreenStep } from '../../lib/screen-step.ts';

/*
 * Signing in, up and out, and the emails around them, through better-auth (which refreshes the session by itself,
 * `lib/auth-invalidation.ts`). Sign-in, sign-up and the two-factor codes show their errors in the form, not as toasts.
 */

/**
 * Whether a sign-in answered that a second factor is needed: there is no session yet, only a short-lived challenge
 * that `useVerifyTotp` or `useVerifyBackupCode` completes.
 */
export const needsSecondFactor = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (data as { twoFactorRedirect?: unknown }).twoFactorRedirect === true;

export function useSignIn(step: ScreenStep<unknown, SignInRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (values: SignInRequest) => unwrap(await auth.signIn.email(values)),
    meta: { toast: false },
    onSuccess: (data, values) => step.onSuccess?.(data, values),
  });
}

/**
 * Signs in with a passkey: the browser asks for one of the account's passkeys, then the server checks it and starts
 * the session (asked again by itself); no password, no second step. Rejects with a sentence (`lib/passkeys.ts`).
 */
export function useSignInWithPasskey(step: ScreenStep<unknown> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: () => passkeyCeremony('sign-in', async () => unwrap(await auth.signIn.passkey())),
    meta: { toast: false },
    onSuccess: (data) => step.onSuccess?.(data, undefined),
  });
}

/**
 * Where single sign-on starts from: a work address (its domain names the identity provider that verified it) or the
 * organization itself (its own provider, whatever the address: the dashboard's gate), with where the browser comes
 * back to, signed in or after a failure.
 */
export type SsoSignInRequest = ({ email: string } | { organizationSlug: string; loginHint?: string }) & {
  callbackURL: string;
  errorCallbackURL: string;
};

/**
 * Starts single sign-on: the server answers the identity provider's address and better-auth's client sends the
 * browser there (`url`, `redirect`); the provider sends it back to `callbackURL` signed in, or to `errorCallbackURL`.
 * Success means only that the browser is on its way.
 */
export function useSignInWithSso() {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (request: SsoSignInRequest) => unwrap(await auth.signIn.sso(request)),
    meta: { toast: false },
  });
}

/** Completes a two-factor sign-in with a code from the authenticator app (the session is then asked again). */
export function useVerifyTotp(step: ScreenStep<unknown, TotpCodeRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (values: TotpCodeRequest) => unwrap(await auth.twoFactor.verifyTotp(values)),
    meta: { toast: false },
    onSuccess: (data, values) => step.onSuccess?.(data, values),
  });
}

/** Completes a two-factor sign-in with one of the backup codes (each works once). */
export function useVerifyBackupCode(step: ScreenStep<unknown, BackupCodeRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (values: BackupCodeRequest) => unwrap(await auth.twoFactor.verifyBackupCode(values)),
    meta: { toast: false },
    onSuccess: (data, values) => step.onSuccess?.(data, values),
  });
}

/** Creates the account; the verification link lands on `/verify-email`. */
export function useSignUp(step: ScreenStep<unknown, SignUpRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (values: SignUpRequest) =>
      unwrap(await auth.signUp.email({ ...values, callbackURL: '/verify-email' })),
    meta: { toast: false },
    onSuccess: (data, values) => step.onSuccess?.(data, values),
  });
}

export function useSignOut(step: ScreenStep<unknown> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async () => unwrap(await auth.signOut()),
    onSuccess: (data) => step.onSuccess?.(data, undefined),
  });
}

/** Sends the verification link of `email` again. */
export function useResendVerification(email: string) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async () => unwrap(await auth.sendVerificationEmail({ email, callbackURL: '/verify-email' })),
  });
}

/** Asks for a reset link (the answer is the same whether or not the address has an account). */
export function useRequestPasswordReset() {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async ({ email }: { email: string }) =>
      unwrap(await auth.requestPasswordReset({ email, redirectTo: '/reset-password' })),
  });
}

/** Sets a new password with the token of a reset link. */
export function useResetPassword(token: string) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async ({ newPassword }: { newPassword: string }) =>
      unwrap(await auth.resetPassword({ newPassword, token })),
  });
}
