import type { CreateFormRequest, FormFiles, FormNotifications, UpdateFormRequest } from '@formgate/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import type { ScreenStep } from '../../lib/screen-step.ts';
import type { SpamSettingsRequest } from '../spam/spam-settings.ts';
import { createForm, deleteForm, type FormDto, formsKeys, updateForm, updateFormSpam } from './forms.queries.ts';

/* The forms mutations: each refreshes every forms query (list, by slug, stats, retention) and says what it did. */

/** Creates a form; the screen's step (opening the new form) runs after the refresh and the toast. */
export function useCreateForm(step: ScreenStep<FormDto, CreateFormRequest> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createForm,
    onSuccess: async (created, body) => {
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
      toast.success(`Form "${created.name}" created`);
      step.onSuccess?.(created, body);
    },
  });
}

function useFormPatch<TVariables>(success: string, mutationFn: (variables: TVariables) => Promise<FormDto>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      toast.success(success);
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}

/** The settings screen's save (name, redirect, origins, honeypot, enabled, retention, storage). */
export const useUpdateForm = (formId: string) =>
  useFormPatch('Settings saved', (body: UpdateFormRequest) => updateForm(formId, body));

/** The notifications panel's save: `settings.notifications` only (merged key by key by the server). */
export const useUpdateFormNotifications = (formId: string) =>
  useFormPatch('Notification settings saved', (notifications: FormNotifications) =>
    updateForm(formId, { settings: { notifications } }),
  );

/** The file uploads panel's save: `settings.files`, whole (both keys; the server replaces it). */
export const useUpdateFormFiles = (formId: string) =>
  useFormPatch('File upload settings saved', (files: FormFiles) => updateForm(formId, { settings: { files } }));

/** The spam panel's save: the form's whole set of spam overrides, `null` for none. */
export const useUpdateFormSpam = (formId: string) =>
  useFormPatch('Spam protection saved', (spam: SpamSettingsRequest | null) => updateFormSpam(formId, spam));

/**
 * Deletes a form. Its by-slug query is dropped before the screen's step (leaving the form's pages) and the other
 * forms queries are refreshed only after it, so nothing asks for the deleted form again.
 */
export function useDeleteForm(form: Pick<FormDto, 'id' | 'name' | 'slug'>, step: ScreenStep<void> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => deleteForm(form.id),
    onSuccess: async () => {
      toast.success(`Form "${form.name}" deleted`);
      queryClient.removeQueries({ queryKey: formsKeys.bySlug(form.slug) });
      step.onSuccess?.(undefined, undefined);
      await queryClient.invalidateQueries({ queryKey: formsKeys.all });
    },
  });
}
