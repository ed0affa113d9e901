import type { MongoMigration } from '@formgate/store/mongo';

/**
 * The indexes Formgate's queries need on the accounts database besides better-auth's own: its MongoDB adapter
 * creates, when it starts, one index per field a schema marks `index` or `unique` (user email, session token, API
 * key, rate limit key, the outbox's `eventId`, `stripeEvent`'s ids…). These are the ones no schema declares:
 * - `member`: (organizationId, userId), the organization plugin's membership lookup, on every organization request.
 * - `organization`: stripeCustomerId, the organization a Stripe event is about (`billing/stripe-events.ts`).
 * - `subscription` (the stripe plugin's): referenceId, stripeSubscriptionId, stripeCustomerId.
 * - `stripeEvent`: (stripeSubscriptionId, outcome, created desc), a subscription's newest applied event
 *   (`webhookGate`).
 * The Stripe ones are made whether Stripe is configured or not: an index on an empty collection costs nothing.
 * They keep the driver's default names (`organizationId_1_userId_1`, …), which the build before this migration gave
 * the same keys at start: on such a database each `createIndex` finds its index there and does nothing, where another
 * name would be refused (error 85). `createIndex` is safe to run again, as a Mongo migration must be.
 */
export const createAccountsIndexes: MongoMigration = {
  version: 1,
  name: 'create member, organization, subscription and stripe event indexes',
  async up(db) {
    const subscription = db.collection('subscription');
    await Promise.all([
      db.collection('member').createIndex({ organizationId: 1, userId: 1 }),
      db.collection('organization').createIndex({ stripeCustomerId: 1 }),
      subscription.createIndex({ referenceId: 1 }),
      subscription.createIndex({ stripeSubscriptionId: 1 }),
      subscription.createIndex({ stripeCustomerId: 1 }),
      db.collection('stripeEvent').createIndex({ stripeSubscriptionId: 1, outcome: 1, created: -1 }),
    ]);
  },
};
