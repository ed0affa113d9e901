import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { OrgsStore } from '../store/orgs-store.ts';
import { applyOrganizationEvent } from '../use-cases/apply-organization-event.ts';

/**
 * `orgs.lifecycle` on `orgs.organization`: the organization's record, default settings, audit log and purge.
 * Records of one organization share a partition, so they are applied one by one in their order.
 */
export function createOrganizationLifecycleHandler(store: OrgsStore) {
  return async (batch: BusMessage[]) => {
    for (const message of batch) {
      await applyOrganizationEvent(store, decodeEvent(Topics.orgsOrganization, message.value));
    }
  };
}
