import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteUsageStore } from '../src/store/sqlite-usage-store.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

const db = openSqlite(':memory:');
runUsageStoreContract({ name: 'sqlite', create: async (meter) => createSqliteUsageStore(db, { meter }) });
