import type { BetterAuthOptions } from 'better-auth';

/**
 * The accounts database, opened by the composition root: what better-auth is given, and how `start()` readies it.
 * Adapters: `createSqliteAccountsStore` (here) and `createMongoAccountsStore` (`@formgate/accounts/mongo`).
 */
export interface AccountsStore {
  database: BetterAuthOptions['database'];
  /**
   * Brings the database to the shape better-auth configured with `options` and Formgate need; `start()` runs it at
   * every boot. SQLite: better-auth's migrations (they compare the tables with its schema). MongoDB: Formgate's
   * numbered migrations (scope `accounts`, ADR 72), each applied once; better-auth's adapter makes its own indexes.
   */
  prepare(options: BetterAuthOptions): Promise<void>;
}
