import type { MongoMigration } from '@formgate/store/mongo';

/** The indexes of the deliveries, their attempt records and the forms view (documents need no creation). */
export const deliveries: MongoMigration = {
  version: 1,
  name: 'create delivery indexes',
  async up(db) {
    const d = db.collection('deliveries');
    await Promise.all([
      d.createIndex({ submissionId: 1, createdAt: 1 }, { name: 'submission' }),
      d.createIndex({ nextAttemptAt: 1 }, { name: 'due' }),
      d.createIndex({ due: 1 }, { name: 'due_flag', sparse: true }),
      d.createIndex({ parked: 1, orgId: 1 }, { name: 'parked', sparse: true }),
      d.createIndex({ formId: 1, status: 1, createdAt: 1 }, { name: 'form_status' }),
      d.createIndex({ formId: 1, purpose: 1, target: 1, createdAt: 1 }, { name: 'form_target' }),
      d.createIndex({ targetId: 1, createdAt: 1 }, { name: 'target' }),
      d.createIndex({ eventPending: 1 }, { name: 'unpublished' }),
      d.createIndex({ deferralPending: 1 }, { name: 'deferral_unpublished', sparse: true }),
      db.collection('delivery_attempts').createIndex({ deliveryId: 1, attempt: 1 }, { name: 'delivery' }),
    ]);
  },
};
