import { createSqliteWebhookEndpointStore } from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';
import { runWebhookEndpointStoreContract } from './webhook-endpoints.contract.ts';

runWebhookEndpointStoreContract({
  name: 'sqlite',
  create: async () => createSqliteWebhookEndpointStore(migratedSqlite()),
});
