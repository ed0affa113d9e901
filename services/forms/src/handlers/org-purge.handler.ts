import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { BlobStore } from '@formgate/store';
import type { FormRepository } from '../store/form-repository.ts';
import { deleteBlobs } from '../use-cases/delete-form.ts';

/**
 * `forms.org-purge` on `orgs.organization`: on `organization.deleted`, deletes the organization's forms,
 * submissions and counters, and first the files their submissions reference. The store leaves each deleted form
 * in the outbox, and `onFormsDeleted` nudges the relay that publishes them as `form.deleted`, so ingest stops
 * accepting their submissions. Idempotent: a repeated purge finds nothing left.
 */
export function createOrgPurgeHandler(deps: { forms: FormRepository; blobs: BlobStore; onFormsDeleted: () => void }) {
  return async (batch: BusMessage[]) => {
    let deleted = 0;
    for (const message of batch) {
      const event = decodeEvent(Topics.orgsOrganization, message.value);
      if (event.type !== 'organization.deleted') continue;
      const scope = { orgId: event.data.orgId };
      for (const form of await deps.forms.listForms(scope)) {
        await deleteBlobs(deps.blobs, await deps.forms.listFormBlobKeys(form.id));
      }
      deleted += await deps.forms.purgeOrganization(scope);
    }
    if (deleted > 0) deps.onFormsDeleted();
  };
}
