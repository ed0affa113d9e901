import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteWebhookEndpointStore } from '../src/endpoints/sqlite-webhook-endpoint-store.ts';
import { runWebhookEndpointStoreContract } from './webhook-endpoint-store.contract.ts';

runWebhookEndpointStoreContract({
  name: 'sqlite',
  create: async () => createSqliteWebhookEndpointStore(openSqlite(':memory:')),
});
