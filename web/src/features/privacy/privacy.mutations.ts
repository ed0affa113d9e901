import type { ErasureRequest } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { formsKeys } from '../forms/forms.queries.ts';
import {
  createErasure,
  getSubjectAccess,
  privacyKeys,
  type SignedErasureReceipt,
  type SubjectAccessDto,
  type SubjectAccessRequest,
  updateRetention,
} from './privacy.queries.ts';
import { retentionSentence } from './retention.ts';

const erased = (count: number) =>
  count === 0
    ? 'No submission contained this address. The receipt records the erasure.'
    : `Erased ${count} ${count === 1 ? 'submission' : 'submissions'}`;

/**
 * Erases every submission of the organization in which an address appears. After the toast, the screen's step
 * receives the signed receipt; then the erasures list and the forms and submissions queries refresh (their counts and
 * lists have lost the erased submissions).
 */
export function useCreateErasure(step: ScreenStep<SignedErasureReceipt, ErasureRequest> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createErasure,
    onSuccess: async (signed, body) => {
      toast.success(erased(signed.receipt.count));
      queryClient.setQueryData(privacyKeys.erasure(signed.receipt.id), signed);
      step.onSuccess?.(signed, body);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: privacyKeys.erasures() }),
        queryClient.invalidateQueries({ queryKey: formsKeys.all }),
      ]);
    },
  });
}

const found = (count: number) =>
  count === 0 ? 'Nothing found for this address' : `${count} ${count === 1 ? 'submission' : 'submissions'} found`;

/**
 * Exports everything the organization holds about an address (nothing changes, so nothing refreshes). After the
 * toast, the screen's step receives the answer.
 */
export function useSubjectAccess(step: ScreenStep<SubjectAccessDto, SubjectAccessRequest> = {}) {
  return useMutation({
    mutationFn: getSubjectAccess,
    onSuccess: (dto, body) => {
      toast.success(found(dto.submissions.length));
      step.onSuccess?.(dto, body);
    },
  });
}

/**
 * Sets the organization's default retention; the answer replaces the policy's query, then every form's retention in
 * force refreshes (forms without their own setting follow the default). A refusal (more days than the plan allows)
 * is toasted as the server words it.
 */
export function useUpdateRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateRetention,
    onSuccess: async (policy) => {
      toast.success(`Retention saved. ${retentionSentence(policy.days)} unless a form sets its own.`);
      queryClient.setQueryData(privacyKeys.retention(), policy);
      await queryClient.invalidateQueries({ queryKey: formsKeys.retentions() });
    },
  });
}
