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

export function useCreateWebhook(
  formId: string,
  step: ScreenStep<WebhookEndpointWithSecretDto, CreateWebhookRequest> = {},
) {
  const refresh = useRefreshWebhooks(formId);
  return useMutation({
    mutationFn: (body: CreateWebhookRequest) => createWebhook(formId, body),
    onSuccess: async (created, body) => {
      step.onSuccess?.(created, body);
      await refresh();
    },
  });
}

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

export function useRotateWebhookSecret(formId: string, step: ScreenStep<WebhookEndpointWithSecretDto, string> = {}) {
  const refresh = useRefreshWebhooks(formId);
  return useMutation({
    mutationFn: (id: string) => rotateWebhookSecret(formId, id),
    onSuccess: async (e, id) => {
      step.onSuccess?.(e, id);
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
