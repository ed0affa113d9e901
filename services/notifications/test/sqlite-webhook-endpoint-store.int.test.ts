import { createSqliteWebhookEndpointStore } from '../src/endpoints/sqlite-webhook-endpoint-store.ts';
import { migratedSqlite } from './notifications-db.ts';
import { runWebhookEndpointStoreContract } from './webhook-endpoint-store.contract.ts';

runWebhookEndpointStoreContract({
  name: 'sqlite',
  create: async () => createSqliteWebhookEndpointStore(migratedSqlite()),
});
