import type { BetterAuthOptions } from 'better-auth';

/**
 * The accounts database, opened by the composition root: what better-auth is given, and how `start()` readies it.
 * Adapters: `createSqliteAccountsStore` (here) and `createMongoAccountsStore` (`@formgate/accounts/mongo`).
 */
export interface AccountsStore {
  database: BetterAuthOptions['database'];
  /**
   * Brings the database to the shape better-auth configured with `options` and Formgate need; `start()` runs it at
   * every boot. SQLite: better-auth's migrations (they compare the tables with its schema), then Formgate's numbered
   * ones. MongoDB: Formgate's numbered migrations; better-auth's adapter makes its own indexes. Formgate's migrations
   * (scope `accounts`, ADR 72) are each applied once.
   */
  prepare(options: BetterAuthOptions): Promise<void>;
}

/** The scope of Formgate's own migrations of the accounts database, on either adapter (ADR 72). */
export const ACCOUNTS_MIGRATION_SCOPE = 'accounts';
