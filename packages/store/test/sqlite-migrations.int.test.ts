import { describe, expect, it } from 'vitest';
import { MigrationError } from '../src/migrations.ts';
import { openSqlite, type SqliteDb } from '../src/sqlite.ts';
import { runSqliteMigrations, type SqliteMigration, sqliteSchemaVersion } from '../src/sqlite-migrations.ts';
import { type MigrationsHarness, runMigrationsContract, type Step } from './migrations.contract.ts';

const asMigrations = (scope: string, steps: Step[]): SqliteMigration[] =>
  steps.map((step, i) => ({
    version: i + 1,
    name: step.name,
    up(db) {
      db.exec(`CREATE TABLE IF NOT EXISTS log (scope TEXT, name TEXT, seq INTEGER PRIMARY KEY)`);
      if (step.fail) throw new Error(`${step.name} failed`);
      db.prepare('INSERT INTO log (scope, name) VALUES (?, ?)').run(scope, step.name);
    },
  }));

const harness = (db: SqliteDb): MigrationsHarness => ({
  run: async (scope, steps) => runSqliteMigrations(db, scope, asMigrations(scope, steps)).applied,
  version: async (scope) => sqliteSchemaVersion(db, scope),
  log: async (scope) =>
    (db.prepare('SELECT name FROM log WHERE scope = ? ORDER BY seq').all(scope) as { name: string }[]).map(
      (r) => r.name,
    ),
});

runMigrationsContract('sqlite', () => harness(openSqlite(':memory:')));

describe('sqlite migrations', () => {
  it('rolls back a failing migration with its record: nothing of it is left', () => {
    const db = openSqlite(':memory:');
    const failing: SqliteMigration[] = [
      { version: 1, name: 'ok', up: (d) => d.exec('CREATE TABLE a (x)') },
      {
        version: 2,
        name: 'half',
        up(d) {
          d.exec('CREATE TABLE b (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => runSqliteMigrations(db, 's', failing)).toThrow('boom');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(tables).toContain('a');
    expect(tables).not.toContain('b');
    expect(sqliteSchemaVersion(db, 's')).toBe(1);
  });

  it('refuses a list whose versions do not run 1, 2, 3 before running any of it', () => {
    const db = openSqlite(':memory:');
    const up = (d: SqliteDb) => d.exec('CREATE TABLE t (x)');
    expect(() =>
      runSqliteMigrations(db, 's', [
        { version: 1, name: 'a', up },
        { version: 3, name: 'c', up },
      ]),
    ).toThrow(MigrationError);
    expect(sqliteSchemaVersion(db, 's')).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get()).toEqual({ n: 0 });
  });
});
