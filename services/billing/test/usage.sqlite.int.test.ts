import { createSqliteUsageStore } from '../src/store/sqlite/usage.ts';
import { migratedBillingDb } from './sqlite-billing.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

const db = migratedBillingDb();
runUsageStoreContract({ name: 'sqlite', create: async (meter) => createSqliteUsageStore(db, { meter }) });
