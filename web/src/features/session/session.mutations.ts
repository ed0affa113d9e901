import { useMutation } from '@tanstack/react-query';
import { unwrap, useServices } from '../../lib/app-context.tsx';
import type { ScreenStep } from '../../lib/screen-step.ts';

/** Signs out (better-auth then refreshes the session); the screen's step says where to go. */
export function useSignOut(step: ScreenStep<unknown> = {}) {
  const { auth } = useServices();
  return useMutation({
    mutationFn: async () => unwrap(await auth.signOut()),
    onSuccess: (data) => step.onSuccess?.(data, undefined),
  });
}
