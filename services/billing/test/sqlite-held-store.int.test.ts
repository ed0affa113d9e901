import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteHeldStore } from '../src/store/sqlite-held-store.ts';
import { runHeldStoreContract } from './held-store.contract.ts';

const db = openSqlite(':memory:');
runHeldStoreContract({ name: 'sqlite', create: async () => createSqliteHeldStore(db) });
runHeldStoreContract({
  name: 'sqlite, deferred emails',
  create: async () => createSqliteHeldStore(db, { ledger: 'emails' }),
});
