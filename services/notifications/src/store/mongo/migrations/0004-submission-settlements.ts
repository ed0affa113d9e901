import type { MongoMigration } from '@formgate/store/mongo';

/**
 * The settlement records of no-store forms' submissions (issue 31), one document per (submission, channel kind):
 * found by submission, and the open ones (`open`, `checkAt`, both unset once settled, so the sparse index holds
 * only those) by when the sweep looks at them.
 */
export const submissionSettlements: MongoMigration = {
  version: 4,
  name: 'create submission settlement indexes',
  async up(db) {
    const settlements = db.collection('submission_settlements');
    await Promise.all([
      settlements.createIndex({ submissionId: 1 }, { name: 'submission' }),
      settlements.createIndex({ open: 1, checkAt: 1 }, { name: 'open_check', sparse: true }),
    ]);
  },
};
