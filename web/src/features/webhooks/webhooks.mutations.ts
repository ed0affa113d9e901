import type { CreateWebhookRequest, UpdateWebhookRequest, WebhookEndpointWithSecretDto } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { createWebhook, deleteWebhook, rotateWebhookSecret, updateWebhook, webhooksKeys } from './webhooks.queries.ts';

/* The webhook endpoint mutations; each refreshes the form's list. A creation or a rotation hands its secret to the
   screen's step (before the refresh), never to the cache. */

function useRefreshWebhooks(formId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: webhooksKeys.ofForm(formId) });
}

/** A mutation whose answer carries a new signing secret: the screen's step takes it, then the list refreshes. */
function useSecretMutation<TVariables>(
  formId: string,
  mutationFn: (variables: TVariables) => Promise<WebhookEndpointWithSecretDto>,
  step: ScreenStep<WebhookEndpointWithSecretDto, TVariables>,
) {
  const refresh = useRefreshWebhooks(formId);
  return useMutation({
    mutationFn,
    onSuccess: async (endpoint: WebhookEndpointWithSecretDto, variables: TVariables) => {
      step.onSuccess?.(endpoint, variables);
      await refresh();
    },
  });
}

export const useCreateWebhook = (
  formId: string,
  step: ScreenStep<WebhookEndpointWithSecretDto, CreateWebhookRequest> = {},
) => useSecretMutation(formId, (body: CreateWebhookRequest) => createWebhook(formId, body), step);

export const useRotateWebhookSecret = (formId: string, step: ScreenStep<WebhookEndpointWithSecretDto, string> = {}) =>
  useSecretMutation(formId, (id: string) => rotateWebhookSecret(formId, id), step);

/** Enables or disables an endpoint (the only change the dashboard makes). */
export function useUpdateWebhook(formId: string) {
  const refresh = useRefreshWebhooks(formId);
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateWebhookRequest }) => updateWebhook(formId, id, body),
    onSuccess: async (e) => {
      toast.success(e.enabled ? 'Webhook enabled' : 'Webhook disabled');
      await refresh();
    },
  });
}

export function useDeleteWebhook(formId: string) {
  const refresh = useRefreshWebhooks(formId);
  return useMutation({
    mutationFn: (id: string) => deleteWebhook(formId, id),
    onSuccess: async () => {
      toast.success('Webhook deleted');
      await refresh();
    },
  });
}
