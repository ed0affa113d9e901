/**
 * Numbered schema migrations, one list per store (a `scope`: `forms`, `billing`, …). A store's migrations live in
 * its adapter's `migrations/` folder, are run once by the composition root before the adapter is built, and are
 * recorded in the store itself, so a store knows which shape it has. A schema change ships as a new migration with a
 * test that upgrades a store of the previous shape; a migration is never edited once it has shipped.
 */
export interface Migration<Db> {
  /** 1, 2, 3, … in order, without gaps: the position of this change in the store's history. */
  version: number;
  /** What it changes, in a few words (`create submissions indexes`). Recorded beside the version. */
  name: string;
  /**
   * Applies the change. SQLite runs it inside a transaction with its record. On MongoDB a migration must be safe to
   * run again (`createIndex` is; a data rewrite must be written so): a process that dies after the change and before
   * its record runs it again on the next boot.
   */
  up(db: Db): unknown;
}

/** What a run did: the versions it applied, in order (empty when the store was up to date). */
export interface MigrationRun {
  scope: string;
  applied: number[];
  /** The store's version after the run. */
  version: number;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/** Checks a list before anything runs: versions 1..n in order, each named once. */
export function checkMigrations<Db>(scope: string, migrations: readonly Migration<Db>[]): void {
  for (const [i, m] of migrations.entries()) {
    if (m.version !== i + 1) {
      throw new MigrationError(
        `${scope}: migration ${i + 1} is numbered ${m.version} (versions run 1, 2, 3, … in order)`,
      );
    }
  }
}

/** Refuses a store that an newer build has migrated further than this build knows. */
export function checkNotAhead(scope: string, recorded: number, known: number): void {
  if (recorded > known) {
    throw new MigrationError(
      `${scope}: the store is at version ${recorded}, this build knows migrations up to ${known} (a newer Formgate migrated it; run that version)`,
    );
  }
}
