import type { SignInRequest, SignUpRequest } from '@formgate/contracts';
import { useMutation } from '@tanstack/react-query';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import type { ScreenStep } from '../../lib/screen-step.ts';

/*
 * Signing in, up and out, and the emails around them, through better-auth (which refreshes the session by itself,
 * `lib/auth-invalidation.ts`). Sign-in and sign-up show their errors in the form, not as toasts.
 */

export function useSignIn(step: ScreenStep<unknown, SignInRequest> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async (values: SignInRequest) => unwrap(await auth.signIn.email(values)),
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
