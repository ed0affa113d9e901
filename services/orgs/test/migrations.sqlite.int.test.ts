import { createAuditChainVerifier } from '@formgate/contracts';
import { openSqlite, runSqliteMigrations } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSqliteAuditStore } from '../src/store/sqlite/audit.ts';
import { migrateSqliteOrgs } from '../src/store/sqlite/index.ts';
import { orgsSqliteMigrations } from '../src/store/sqlite/migrations/index.ts';

describe('orgs SQLite migrations', () => {
  it('bring an empty file to the latest shape once', () => {
    const db = openSqlite(':memory:');
    expect(migrateSqliteOrgs(db)).toEqual({ scope: 'orgs', applied: [1, 2], version: 2 });
    const schema = db
      .prepare(`SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
      .all();
    expect(schema).toEqual([
      { type: 'index', name: 'audit_log_chain' },
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
    expect(columns('audit_log')).toEqual([
      'id',
      'org_id',
      'type',
      'actor',
      'occurred_at',
      'data',
      'seq',
      'prev_hash',
      'hash',
    ]);
    expect(migrateSqliteOrgs(db)).toEqual({ scope: 'orgs', applied: [], version: 2 });
  });

  it('chain the entries a log already had, per organization, in the order it showed them', async () => {
    const db = openSqlite(':memory:');
    runSqliteMigrations(db, 'orgs', orgsSqliteMigrations.slice(0, 1));
    const insert = db.prepare(
      'INSERT INTO audit_log (id, org_id, type, actor, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const actor = JSON.stringify({ userId: 'u1', email: 'a@example.com' });
    insert.run('e2', 'org_a', 'member.added', actor, '2026-05-02T00:00:00.000Z', '{"role":"member"}');
    insert.run('e1', 'org_a', 'organization.created', null, '2026-05-01T00:00:00.000Z', '{}');
    insert.run('f1', 'org_b', 'organization.created', null, '2026-05-03T00:00:00.000Z', '{}');
    migrateSqliteOrgs(db);
    const audit = createSqliteAuditStore(db);
    for (const orgId of ['org_a', 'org_b']) {
      const chain = await audit.readChain({ orgId }, { afterSeq: 0, limit: 10 });
      const verifier = createAuditChainVerifier(orgId);
      await verifier.check(chain.map((e) => ({ ...e, orgId })));
      expect(verifier.result()).toMatchObject({ ok: true, entries: orgId === 'org_a' ? 2 : 1 });
      if (orgId === 'org_a')
        expect(chain.map((e) => [e.id, e.seq])).toEqual([
          ['e1', 1],
          ['e2', 2],
        ]);
    }
    // The next entry follows them.
    await audit.appendAudit(
      { orgId: 'org_a' },
      { id: 'e3', type: 'member.removed', actor: null, occurredAt: '2026-05-04T00:00:00.000Z', data: {} },
    );
    expect((await audit.readChain({ orgId: 'org_a' }, { afterSeq: 2, limit: 10 }))[0]?.seq).toBe(3);
  });
});
