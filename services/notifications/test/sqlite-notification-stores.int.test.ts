import { createSqliteNotificationStores } from '../src/store/sqlite/index.ts';
import { runNotificationStoresContract } from './delivery-log.contract.ts';
import { migratedSqlite } from './notifications-db.ts';

runNotificationStoresContract({ name: 'sqlite', create: async () => createSqliteNotificationStores(migratedSqlite()) });
