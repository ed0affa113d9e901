import type { MongoMigration } from '@formgate/store/mongo';

/**
 * The indexes Formgate's queries need on the accounts database besides better-auth's own: its MongoDB adapter
 * creates, when it starts, one index per field a schema marks `index` or `unique` (user email, session token, API
 * key, rate limit key, the outbox's `eventId`, `stripeEvent`'s ids…). These are the ones no schema declares:
 * - `member`: `org_user` (the organization plugin's membership lookup, on every organization request).
 * - `organization`: `stripe_customer` (the organization a Stripe event is about, `billing/stripe-events.ts`).
 * - `subscription` (the stripe plugin's): `reference`, `stripe_subscription`, `stripe_customer`.
 * - `stripeEvent`: `subscription_outcome_created` (a subscription's newest applied event, `webhookGate`).
 * The Stripe ones are made whether Stripe is configured or not: an index on an empty collection costs nothing.
 * `createIndex` is safe to run again, as a Mongo migration must be.
 */
export const createAccountsIndexes: MongoMigration = {
  version: 1,
  name: 'create member, organization, subscription and stripe event indexes',
  async up(db) {
    const subscription = db.collection('subscription');
    await Promise.all([
      db.collection('member').createIndex({ organizationId: 1, userId: 1 }, { name: 'org_user' }),
      db.collection('organization').createIndex({ stripeCustomerId: 1 }, { name: 'stripe_customer' }),
      subscription.createIndex({ referenceId: 1 }, { name: 'reference' }),
      subscription.createIndex({ stripeSubscriptionId: 1 }, { name: 'stripe_subscription' }),
      subscription.createIndex({ stripeCustomerId: 1 }, { name: 'stripe_customer' }),
      db
        .collection('stripeEvent')
        .createIndex({ stripeSubscriptionId: 1, outcome: 1, created: -1 }, { name: 'subscription_outcome_created' }),
    ]);
  },
};
