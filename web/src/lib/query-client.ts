import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { describeError, isApiError } from './api.ts';
import { organizationListKey, sessionKey } from './auth-invalidation.ts';

/** Errors the screens handle themselves: a missing session is a redirect, not a toast. */
const isQuiet = (err: unknown) => isApiError(err) && (err.status === 401 || err.status === 404);
/** The refusals of a session that does not meet its organization's sign-in requirements. */
const SIGN_IN_REQUIREMENTS = new Set(['TWO_FACTOR_REQUIRED', 'SSO_REQUIRED']);

/**
 * The one place errors become toasts: a failed mutation always, a failed query only when it had shown data before
 * (a first load shows its own error state). A mutation may opt out with `meta: { toast: false }`. A refusal for want
 * of two-factor (`TWO_FACTOR_REQUIRED`) or of single sign-on (`SSO_REQUIRED`) also asks again for the session and the
 * organization list, whose change it reveals (the organization now requires it, or two-factor was turned off), so
 * the dashboard can say what to do (`SignInGate`).
 */
export function createQueryClient() {
  const refreshOnSignInRequired = (err: unknown) => {
    if (!isApiError(err) || !SIGN_IN_REQUIREMENTS.has(err.code ?? '')) return;
    // Several screens may be refused at once: one refetch of each is enough.
    void client.invalidateQueries({ queryKey: sessionKey }, { cancelRefetch: false });
    void client.invalidateQueries({ queryKey: organizationListKey }, { cancelRefetch: false });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (err, query) => {
        refreshOnSignInRequired(err);
        if (query.state.data !== undefined && !isQuiet(err)) toast.error(describeError(err));
      },
    }),
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        refreshOnSignInRequired(err);
        if (mutation.meta?.toast !== false) toast.error(describeError(err));
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: (count, err) => count < 2 && !(isApiError(err) && err.status >= 400 && err.status < 500),
      },
    },
  });
  return client;
}
