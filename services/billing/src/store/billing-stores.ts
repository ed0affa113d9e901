import type { HeldStore } from './held-store.ts';
import type { StorageStore } from './storage-store.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { UsageStore } from './usage-store.ts';

/** Billing's ports, each injected on its own; `createSqliteBillingStores` / `createMongoBillingStores` build them. */
export interface BillingStores {
  /** The submissions meter. */
  usage: UsageStore;
  /** The notification emails meter. */
  emails: UsageStore;
  /** Submissions accepted over quota, waiting for a higher plan or the next period. */
  held: HeldStore;
  /** Notification emails deferred over quota: `emails.deferred`. */
  deferredEmails: HeldStore;
  subscriptions: SubscriptionStore;
  /** The file storage meter: bytes of uploaded files kept per organization. */
  storage: StorageStore;
}
