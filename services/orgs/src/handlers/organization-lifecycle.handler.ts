import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { OrgsStores } from '../store/orgs-stores.ts';
import { applyOrganizationEvent } from '../use-cases/apply-organization-event.ts';

/**
 * `orgs.lifecycle` on `orgs.organization`: the organization's record, default settings, audit log and purge.
 * Records of one organization share a partition, so they are applied one by one in their order.
 */
export function createOrganizationLifecycleHandler(stores: OrgsStores) {
  return async (batch: BusMessage[]) => {
    for (const message of batch) {
      await applyOrganizationEvent(stores, decodeEvent(Topics.orgsOrganization, message.value));
    }
  };
}
