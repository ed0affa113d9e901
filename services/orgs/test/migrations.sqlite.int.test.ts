import { openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { migrateSqliteOrgs } from '../src/store/sqlite/index.ts';

describe('orgs SQLite migrations', () => {
  it('bring an empty file to the latest shape once', () => {
    const db = openSqlite(':memory:');
    expect(migrateSqliteOrgs(db)).toEqual({ scope: 'orgs', applied: [1], version: 1 });
    const schema = db
      .prepare(`SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
      .all();
    expect(schema).toEqual([
      { type: 'index', name: 'audit_log_newest' },
      { type: 'index', name: 'org_spam_unpublished' },
      { type: 'table', name: 'audit_log' },
      { type: 'table', name: 'org_spam' },
      { type: 'table', name: 'organizations' },
      { type: 'table', name: 'schema_migrations' },
    ]);
    const columns = (table: string) =>
      (db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(table) as { name: string }[]).map(
        (c) => c.name,
      );
    expect(columns('organizations')).toEqual([
      'org_id',
      'name',
      'slug',
      'deleted',
      'submission_notification_email',
      'email_management',
    ]);
    expect(columns('org_spam')).toEqual(['org_id', 'spam', 'version', 'published']);
    expect(migrateSqliteOrgs(db)).toEqual({ scope: 'orgs', applied: [], version: 1 });
  });
});
