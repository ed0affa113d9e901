import type { MongoMigration } from '@formgate/store/mongo';

/** The endpoints' slots per form (unique) and the lookup of an endpoint's documents. */
export const webhookEndpoints: MongoMigration = {
  version: 2,
  name: 'create webhook endpoint indexes',
  async up(db) {
    const docs = db.collection('webhook_endpoints');
    await Promise.all([
      docs.createIndex({ formId: 1, slot: 1 }, { name: 'form_slot', unique: true }),
      docs.createIndex({ endpointId: 1 }, { name: 'endpoint_id' }),
    ]);
  },
};
