import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { isApiError } from '../../lib/api.ts';
import type { ScreenStep } from '../../lib/screen-step.ts';
import { formsKeys } from '../forms/forms.queries.ts';
import {
  type BulkSubmissionsRequest,
  bulkSubmissions,
  deleteSubmission,
  type ExportFormat,
  exportSubmissions,
  fileLink,
  MAX_BULK_IDS,
  markSubmission,
  type SubmissionFilters,
  safeLink,
  submissionsKeys,
} from './submissions.queries.ts';

/* The submissions mutations. A change to a submission changes the form's counts too: each refreshes the form's
   submissions and every forms query. */

/** Marks one submission spam or not spam. */
export function useMarkSubmission(formId: string, submissionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (spam: boolean) => markSubmission(formId, submissionId, { spam }),
    onSuccess: async (_updated, spam) => {
      toast.success(spam ? 'Marked as spam' : 'Marked as not spam: it is notified and counted now');
      await queryClient.invalidateQueries({ queryKey: submissionsKeys.all(formId) });
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}

/** Deletes one submission; the screen's step (leaving it) runs once the lists no longer hold it. */
export function useDeleteSubmission(formId: string, submissionId: string, step: ScreenStep<void> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => deleteSubmission(formId, submissionId),
    onSuccess: async () => {
      toast.success('Submission deleted');
      // The list must no longer hold it before the index opens the newest one again.
      await queryClient.invalidateQueries({ queryKey: submissionsKeys.lists(formId) });
      queryClient.removeQueries({ queryKey: submissionsKeys.detail(formId, submissionId) });
      step.onSuccess?.(undefined, undefined);
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}

export interface BulkResult {
  action: BulkSubmissionsRequest['action'];
  ids: string[];
  changed: number;
}

/**
 * One action on any number of submissions, `MAX_BULK_IDS` per request; the toast counts those it changed. The
 * screen's step runs once the lists are fresh.
 */
export function useBulkSubmissions(formId: string, step: ScreenStep<BulkResult, BulkSubmissionsRequest> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ action, ids }: BulkSubmissionsRequest): Promise<BulkResult> => {
      let changed = 0;
      for (let i = 0; i < ids.length; i += MAX_BULK_IDS) {
        const answer = await bulkSubmissions(formId, { action, ids: ids.slice(i, i + MAX_BULK_IDS) });
        changed += answer.data.filter((d) => d.result === 'changed').length;
      }
      return { action, ids, changed };
    },
    onSuccess: async (result, request) => {
      const { action, changed } = result;
      const verb = action === 'delete' ? 'deleted' : action === 'spam' ? 'marked spam' : 'marked not spam';
      toast.success(`${changed} ${changed === 1 ? 'submission' : 'submissions'} ${verb}`);
      await queryClient.invalidateQueries({ queryKey: submissionsKeys.lists(formId) });
      step.onSuccess?.(result, request);
      await queryClient.invalidateQueries({ queryKey: submissionsKeys.all(formId) });
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}

/** Asks for a short-lived link to a file, then opens it (the server answers it as an attachment). */
export function useDownloadFile(formId: string, submissionId: string, fileId: string) {
  return useMutation({
    mutationFn: () => fileLink(formId, submissionId, fileId),
    onSuccess: ({ url }) => {
      const safe = safeLink(url);
      if (!safe) {
        toast.error('The server answered an unusable link.');
        return;
      }
      window.location.assign(safe);
    },
  });
}

/**
 * Downloads the list as filtered, as CSV or JSON; `fallbackName` names the file when the server does not. A refusal
 * toasts like any other; `FORMS_NOTHING_TO_EXPORT` (the form no longer stores submissions, issue 31) also refreshes
 * the form, so the screen says why there is nothing to export.
 */
export function useExportSubmissions(
  formId: string,
  filters: SubmissionFilters,
  fallbackName: (format: ExportFormat) => string,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (format: ExportFormat) => exportSubmissions(formId, filters, format),
    onSuccess: ({ blob, filename }, format) => {
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename ?? fallbackName(format);
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 0);
    },
    onError: async (err) => {
      if (isApiError(err) && err.code === 'FORMS_NOTHING_TO_EXPORT') {
        await queryClient.invalidateQueries({ queryKey: formsKeys.all });
      }
    },
  });
}
