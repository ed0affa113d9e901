import type { OrgScope } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { FormRepository } from '../store/form-repository.ts';
import type { FormWriteDeps } from './form-write-deps.ts';

/**
 * Deletes a form: it is gone from the API at once, and its deletion waits in the outbox; `onFormChanged` nudges
 * the relay, which purges the form's submissions and files (`purgeDeletedForm`) and publishes `form.deleted`.
 * Resolves with the version the deletion is published with (what ingest's view must reach before it refuses).
 */
export async function deleteForm(deps: FormWriteDeps, scope: OrgScope, formId: string): Promise<number> {
  const version = await deps.forms.deleteForm(scope, formId);
  if (version === null) throw new AppError('FORMS_FORM_NOT_FOUND');
  void deps.onFormChanged();
  return version;
}

/**
 * Removes everything a deleted form stored: the files first (their keys live in the submissions), then the
 * submissions, counters and pending changes. Idempotent; run by the relay for each deletion and by the
 * projection for submissions that raced the deletion.
 */
export async function purgeDeletedForm(
  deps: { forms: FormRepository; blobs: BlobStore },
  formId: string,
): Promise<void> {
  await deleteBlobs(deps.blobs, await deps.forms.listFormBlobKeys(formId));
  await deps.forms.purgeDeletedForm(formId);
}

/** Deletes blobs a few at a time; a missing one is not an error. */
export async function deleteBlobs(blobs: BlobStore, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 16) await Promise.all(keys.slice(i, i + 16).map((k) => blobs.delete(k)));
}
