import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteUsageStore } from '../src/store/sqlite-usage-store.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

runUsageStoreContract({ name: 'sqlite', create: async () => createSqliteUsageStore(openSqlite(':memory:')) });
