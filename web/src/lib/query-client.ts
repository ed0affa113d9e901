import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { describeError, isApiError } from './api.ts';

/** Errors the screens handle themselves: a missing session is a redirect, not a toast. */
const isQuiet = (err: unknown) => isApiError(err) && (err.status === 401 || err.status === 404);

/**
 * The one place errors become toasts: a failed mutation always, a failed query only when it had shown data before
 * (a first load shows its own error state). A mutation may opt out with `meta: { toast: false }`.
 */
export function createQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (err, query) => {
        if (query.state.data !== undefined && !isQuiet(err)) toast.error(describeError(err));
      },
    }),
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
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
}
