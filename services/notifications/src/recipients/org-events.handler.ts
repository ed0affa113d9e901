import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { GoneSubmissions, RecipientStore } from '../store/index.ts';

/**
 * `notifications.recipients-org` on `orgs.organization`: keeps each organization's name (for the verification
 * mail) from `organization.created` / `organization.updated`, and on `organization.deleted` purges its notification
 * addresses, mail counters and name, and its deleted submissions' tombstones (`gone`). Idempotent: every effect is
 * an upsert or a delete.
 */
export function createRecipientsOrgHandler(deps: {
  store: RecipientStore;
  gone: Pick<GoneSubmissions, 'purgeOrganization'>;
}) {
  return async (batch: BusMessage[]) => {
    for (const message of batch) {
      const event = decodeEvent(Topics.orgsOrganization, message.value);
      if (event.type === 'organization.created' || event.type === 'organization.updated') {
        await deps.store.setOrgName(event.data.orgId, event.data.name);
      } else if (event.type === 'organization.deleted') {
        await deps.store.purgeOrganization({ orgId: event.data.orgId });
        await deps.gone.purgeOrganization({ orgId: event.data.orgId });
      }
    }
  };
}
