import { createSqliteSubscriptionStore } from '../src/store/sqlite/subscriptions.ts';
import { migratedBillingDb } from './sqlite-billing.ts';
import { runSubscriptionStoreContract } from './subscription-store.contract.ts';

const db = migratedBillingDb();
runSubscriptionStoreContract({ name: 'sqlite', create: async () => createSqliteSubscriptionStore(db) });
