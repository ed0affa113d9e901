import { useMutation } from '@tanstack/react-query';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api.ts';

/*
 * Posts to one of this instance's own public forms (`/f/{key}`), as a customer's site would: multipart, no cookies.
 * The screens show the outcome themselves (`meta: { toast: false }`).
 */

const postToForm = (endpoint: string, body: FormData) =>
  apiFetch<{ ok: boolean; id: string } | undefined>(endpoint, { method: 'POST', body, credentials: 'omit' });

/** Sends an HTML form's fields. */
export function usePostToForm(endpoint: string) {
  return useMutation({
    mutationFn: (form: HTMLFormElement) => postToForm(endpoint, new FormData(form)),
    meta: { toast: false },
  });
}

/** Sends `email` and `feedback` (the dashboard's "Share Feedback"); the screen's steps follow the thanks or the failure. */
export function useSendFeedback(endpoint: string, steps: { onSuccess: () => void; onError: () => void }) {
  return useMutation({
    mutationFn: async ({ email, feedback }: { email: string; feedback: string }) => {
      const body = new FormData();
      body.set('email', email);
      body.set('feedback', feedback);
      await postToForm(endpoint, body);
    },
    meta: { toast: false },
    onSuccess: () => {
      toast.success('Feedback received, thank you!');
      steps.onSuccess();
    },
    onError: steps.onError,
  });
}
