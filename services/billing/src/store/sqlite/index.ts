import type { SqliteDb } from '@formgate/store/sqlite';
import type { BillingStores } from '../billing-stores.ts';
import { createSqliteHeldStore } from './held.ts';
import { createSqliteStorageStore } from './storage.ts';
import { createSqliteSubscriptionStore } from './subscriptions.ts';
import { createSqliteUsageStore } from './usage.ts';

export { billingSqliteMigrations, migrateSqliteBilling } from './migrations/index.ts';
export { createSqliteHeldStore, createSqliteStorageStore, createSqliteSubscriptionStore, createSqliteUsageStore };

/** Billing's stores on one SQLite file, migrated first (`migrateSqliteBilling`). */
export function createSqliteBillingStores(db: SqliteDb): BillingStores {
  return {
    usage: createSqliteUsageStore(db),
    emails: createSqliteUsageStore(db, { meter: 'emails' }),
    held: createSqliteHeldStore(db),
    deferredEmails: createSqliteHeldStore(db, { ledger: 'emails' }),
    subscriptions: createSqliteSubscriptionStore(db),
    storage: createSqliteStorageStore(db),
  };
}
