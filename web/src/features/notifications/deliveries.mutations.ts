import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { deliveriesKeys, type ReplayRequest, replayDeliveries, resendDelivery } from './deliveries.queries.ts';

/** Sends one delivery of a submission again; its log is refreshed. */
export function useResendDelivery(formId: string, submissionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => resendDelivery(formId, submissionId, deliveryId),
    onSuccess: async (created) => {
      toast.success(created.status === 'succeeded' ? 'Sent again' : 'Sending again');
      await queryClient.invalidateQueries({ queryKey: deliveriesKeys.ofSubmission(formId, submissionId) });
    },
  });
}

/** Re-attempts the form's failed deliveries in a time range; every delivery log of the form is refreshed. */
export function useReplayDeliveries(formId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: ReplayRequest) => replayDeliveries(formId, request),
    onSuccess: async ({ replayed }) => {
      toast.success(
        replayed === 0
          ? 'No failed deliveries in that range'
          : `Replaying ${replayed} ${replayed === 1 ? 'delivery' : 'deliveries'}`,
      );
      await queryClient.invalidateQueries({ queryKey: deliveriesKeys.all(formId) });
    },
  });
}
