import type { BetterAuthOptions } from 'better-auth';

/**
 * The accounts database, opened by the composition root: what better-auth is given, and how `start()` readies it.
 * Adapters: `createSqliteAccountsStore` (here) and `createMongoAccountsStore` (`@formgate/accounts/mongo`).
 */
export interface AccountsStore {
  database: BetterAuthOptions['database'];
  /** Migrates or indexes the database for better-auth configured with `options`; idempotent, run at every start. */
  prepare(options: BetterAuthOptions): Promise<void>;
}
