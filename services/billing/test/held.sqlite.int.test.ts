import { createSqliteHeldStore } from '../src/store/sqlite/held.ts';
import { runHeldStoreContract } from './held-store.contract.ts';
import { migratedBillingDb } from './sqlite-billing.ts';

const db = migratedBillingDb();
runHeldStoreContract({ name: 'sqlite', create: async () => createSqliteHeldStore(db) });
runHeldStoreContract({
  name: 'sqlite, deferred emails',
  create: async () => createSqliteHeldStore(db, { ledger: 'emails' }),
});
