import type { MongoDb } from '@formgate/store/mongo';
import type { BillingStores } from '../billing-stores.ts';
import { createMongoHeldStore } from './held.ts';
import { createMongoStorageStore } from './storage.ts';
import { createMongoSubscriptionStore } from './subscriptions.ts';
import { createMongoUsageStore } from './usage.ts';

export { billingMongoMigrations, migrateMongoBilling } from './migrations/index.ts';
export { createMongoHeldStore, createMongoStorageStore, createMongoSubscriptionStore, createMongoUsageStore };

/** Billing's stores on one database, migrated first (`migrateMongoBilling`). */
export function createMongoBillingStores(db: MongoDb): BillingStores {
  return {
    usage: createMongoUsageStore(db),
    emails: createMongoUsageStore(db, { meter: 'emails' }),
    held: createMongoHeldStore(db),
    deferredEmails: createMongoHeldStore(db, { ledger: 'emails' }),
    subscriptions: createMongoSubscriptionStore(db),
    storage: createMongoStorageStore(db),
  };
}
