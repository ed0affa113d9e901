import { mongodbAdapter } from 'better-auth/adapters/mongodb';
import type { Db } from 'mongodb';
import type { AccountsStore } from './accounts-store.ts';

/** better-auth on a MongoDB database (distributed mode), without transactions; its indexes made at every start. */
export function createMongoAccountsStore(db: Db): AccountsStore {
  return { database: mongodbAdapter(db, { transaction: false }), prepare: () => ensureMongoIndexes(db) };
}

/** MongoDB's code for an index that exists on the same keys under another name. */
const INDEX_OPTIONS_CONFLICT = 85;

/**
 * The indexes better-auth's queries need on MongoDB (its adapter creates none, and runs without transactions
 * here: FerretDB has none to offer). Idempotent; run at every boot.
 */
async function ensureMongoIndexes(db: Db) {
  const specs: [string, Record<string, 1 | -1>, { unique?: boolean }?][] = [
    ['user', { email: 1 }, { unique: true }],
    ['session', { token: 1 }, { unique: true }],
    ['session', { userId: 1 }],
    ['account', { userId: 1 }],
    ['verification', { identifier: 1 }],
    ['member', { organizationId: 1, userId: 1 }],
    ['member', { userId: 1 }],
    ['organization', { slug: 1 }, { unique: true }],
    ['invitation', { organizationId: 1 }],
    ['invitation', { email: 1 }],
    ['team', { organizationId: 1 }],
    ['teamMember', { teamId: 1 }],
    ['teamMember', { userId: 1 }],
    ['apikey', { key: 1 }],
    ['apikey', { referenceId: 1 }],
    ['rateLimit', { key: 1 }, { unique: true }],
    ['orgEventOutbox', { eventId: 1 }],
    // The stripe plugin's (present only when Stripe is configured; indexes on absent collections are harmless).
    ['subscription', { referenceId: 1 }],
    ['subscription', { stripeSubscriptionId: 1 }],
    ['subscription', { stripeCustomerId: 1 }],
    ['organization', { stripeCustomerId: 1 }],
    ['stripeEvent', { stripeEventId: 1 }],
    ['stripeEvent', { stripeSubscriptionId: 1, outcome: 1, created: -1 }],
  ];
  for (const [collection, keys, options] of specs) {
    // better-auth (1.7.25+) creates some of the same indexes itself under its own names: an equal index is enough.
    await db
      .collection(collection)
      .createIndex(keys, options ?? {})
      .catch((err: { code?: number }) => {
        if (err.code !== INDEX_OPTIONS_CONFLICT) throw err;
      });
  }
}
