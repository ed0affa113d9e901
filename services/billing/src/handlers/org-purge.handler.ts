import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { HeldStore } from '../store/held-store.ts';
import type { StorageStore } from '../store/storage-store.ts';
import type { SubscriptionStore } from '../store/subscription-store.ts';
import type { UsageStore } from '../store/usage-store.ts';

/**
 * `billing.org-purge` on `orgs.organization`: on `organization.deleted`, deletes the organization's usage ledger,
 * held, deferred emails and storage ledgers and subscription (leaving a tombstone, so late submissions are not
 * metered) and publishes its view
 * for the current period (nothing used, nothing held, the default plan), so the compacted `billing.quota` (and the
 * views built from it, such as ingest's) no longer holds the organization over quota. Idempotent: purging again and
 * republishing the same view change nothing.
 */
export function createOrgPurgeHandler(deps: {
  usage: UsageStore;
  held: HeldStore;
  deferredEmails: HeldStore;
  subscriptions: SubscriptionStore;
  storage: StorageStore;
  quota: Quota;
}) {
  return async (batch: BusMessage[]) => {
    for (const message of batch) {
      const event = decodeEvent(Topics.orgsOrganization, message.value);
      if (event.type !== 'organization.deleted') continue;
      const scope = { orgId: event.data.orgId };
      await deps.usage.purgeOrganization(scope);
      await deps.held.purgeOrganization(scope);
      await deps.deferredEmails.purgeOrganization(scope);
      await deps.subscriptions.purgeOrganization(scope);
      await deps.storage.purgeOrganization(scope);
      await deps.quota.publish([scope], { storage: true });
    }
  };
}
