import type { MongoMigration } from '@formgate/store/mongo';

/**
 * Organization event outbox rows written before their topic, state and time were required (nothing published them
 * yet: a deletion intent in its grace period, or rows kept through an outage of the log) get what the relay used to
 * assume for them: topic `orgs.organization`, state `ready`, time 0. `{ field: null }` matches an absent field too;
 * the updates are safe to run again.
 */
export const completeOutboxRows: MongoMigration = {
  version: 2,
  name: 'complete organization event outbox rows of the previous shape',
  async up(db) {
    const outbox = db.collection('orgEventOutbox');
    await outbox.updateMany({ topic: null }, { $set: { topic: 'orgs.organization' } });
    await outbox.updateMany({ state: null }, { $set: { state: 'ready' } });
    await outbox.updateMany({ recordedAt: null }, { $set: { recordedAt: 0 } });
  },
};
