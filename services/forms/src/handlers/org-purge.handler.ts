import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { FormsStore } from '../store/forms-store.ts';

/**
 * `forms.org-purge` on `orgs.organization`: on `organization.deleted`, deletes the organization's forms,
 * submissions and counters. The store leaves each deleted form in the outbox, and `onFormsDeleted` nudges the
 * relay that publishes them as `form.deleted`, so ingest stops accepting their submissions. Idempotent: a
 * repeated purge finds nothing left.
 */
export function createOrgPurgeHandler(deps: { store: FormsStore; onFormsDeleted: () => void }) {
  return async (batch: BusMessage[]) => {
    let deleted = 0;
    for (const message of batch) {
      const event = decodeEvent(Topics.orgsOrganization, message.value);
      if (event.type !== 'organization.deleted') continue;
      deleted += await deps.store.purgeOrganization({ orgId: event.data.orgId });
    }
    if (deleted > 0) deps.onFormsDeleted();
  };
}
