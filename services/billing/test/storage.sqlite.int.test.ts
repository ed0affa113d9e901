import { createSqliteStorageStore } from '../src/store/sqlite/storage.ts';
import { migratedBillingDb } from './sqlite-billing.ts';
import { runStorageStoreContract } from './storage-store.contract.ts';

const db = migratedBillingDb();
runStorageStoreContract({ name: 'sqlite', create: async () => createSqliteStorageStore(db) });
