import { checkMigrations, checkNotAhead, type Migration, type MigrationRun } from './migrations.ts';
import type { SqliteDb } from './sqlite.ts';

export type SqliteMigration = Migration<SqliteDb>;

const LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL,
  PRIMARY KEY (scope, version)
) WITHOUT ROWID`;

/** The version a scope's store has reached (0: none of its migrations has run). */
export function sqliteSchemaVersion(db: SqliteDb, scope: string): number {
  db.exec(LEDGER);
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations WHERE scope = ?').get(scope) as {
    v: number | null;
  };
  return row.v ?? 0;
}

/**
 * Runs the scope's migrations the file has not recorded yet, each in one immediate transaction with its record:
 * a crash leaves either the change and its record, or neither. Several stores may share one file (their scopes
 * differ). The file has one writer (the process that opened it), so no lock beyond SQLite's own is needed.
 */
export function runSqliteMigrations(
  db: SqliteDb,
  scope: string,
  migrations: readonly SqliteMigration[],
  now: () => Date = () => new Date(),
): MigrationRun {
  checkMigrations(scope, migrations);
  const start = sqliteSchemaVersion(db, scope);
  checkNotAhead(scope, start, migrations.length);
  const record = db.prepare('INSERT INTO schema_migrations (scope, version, name, applied_at) VALUES (?, ?, ?, ?)');
  const applied: number[] = [];
  for (const m of migrations.slice(start)) {
    db.transaction(() => {
      const result = m.up(db);
      if (result instanceof Promise)
        throw new Error(`${scope} migration ${m.version}: SQLite migrations are synchronous`);
      record.run(scope, m.version, m.name, now().toISOString());
    }).immediate();
    applied.push(m.version);
  }
  return { scope, applied, version: migrations.length };
}
