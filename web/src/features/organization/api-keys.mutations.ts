import type { CreateApiKeyRequest, CreatedApiKeyDto } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { createApiKey, organizationKeys, revokeApiKey } from './organization.queries.ts';

/** Creates a key; the screen's step holds the key (never cached) before the list refreshes. */
export function useCreateApiKey(step: ScreenStep<CreatedApiKeyDto, CreateApiKeyRequest> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: async (key, body) => {
      step.onSuccess?.(key, body);
      await queryClient.invalidateQueries({ queryKey: organizationKeys.apiKeys });
    },
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeApiKey,
    onSuccess: async () => {
      toast.success('API key revoked');
      await queryClient.invalidateQueries({ queryKey: organizationKeys.apiKeys });
    },
  });
}
