import { randomUUID } from 'node:crypto';
import { openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSqliteFormsStore } from '../src/store/sqlite-forms-store.ts';
import { runFormsStoreContract } from './forms-store.contract.ts';

runFormsStoreContract({ name: 'sqlite', create: async () => createSqliteFormsStore(openSqlite(':memory:')) });

// The submissions tables as they were before positions (ADR 0015).
const OLD_SCHEMA = `
CREATE TABLE submissions (
  id TEXT PRIMARY KEY, form_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL
);
CREATE INDEX submissions_by_form ON submissions (form_id, created_at DESC, id DESC);
CREATE TABLE form_counters (form_id TEXT PRIMARY KEY, submissions INTEGER NOT NULL);
`;

describe('sqlite FormsStore on a database from before positions', () => {
  it('numbers each form’s submissions in the order they were listed, and continues after them', async () => {
    const db = openSqlite(':memory:');
    db.exec(OLD_SCHEMA);
    const scope = { orgId: 'org-a' };
    const [f, g] = [randomUUID(), randomUUID()];
    const body = JSON.stringify({ fields: [], files: [], spam: { isSpam: false, reasons: [] }, held: false });
    const rows = [
      ['s3', f, '2026-01-01T00:00:03.000Z'],
      ['s1', f, '2026-01-01T00:00:01.000Z'],
      ['s2b', f, '2026-01-01T00:00:02.000Z'],
      ['s2a', f, '2026-01-01T00:00:02.000Z'],
      ['t1', g, '2026-01-01T00:00:01.000Z'],
    ];
    const insert = db.prepare('INSERT INTO submissions VALUES (?, ?, ?, ?, ?)');
    for (const [id, formId, at] of rows) insert.run(id, formId, scope.orgId, at, body);
    db.prepare('INSERT INTO form_counters VALUES (?, ?), (?, ?)').run(f, 4, g, 1);

    const store = createSqliteFormsStore(db);
    const listed = async (formId: string) =>
      (await store.listSubmissions(scope, formId, { limit: 10 })).map((r) => [r.id, r.seq]);
    expect(await listed(f)).toEqual([
      ['s3', 3],
      ['s2b', 2],
      ['s2a', 1],
      ['s1', 0],
    ]);
    expect(await listed(g)).toEqual([['t1', 0]]);
    const next = { id: 's0', formId: f, orgId: scope.orgId, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(
      await store.insertSubmissions([
        { ...next, fields: [], files: [], spam: { isSpam: false, reasons: [] }, held: false },
      ]),
    ).toBe(1);
    expect((await listed(f))[0]).toEqual(['s0', 4]);
    expect(db.prepare('SELECT submissions, next_seq FROM form_counters WHERE form_id = ?').get(f)).toEqual({
      submissions: 5,
      next_seq: 5,
    });
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'submissions_by_form'`).get()).toBeUndefined();
  });

  it('computes spam counts, the last submission and daily counts for the submissions it already had', async () => {
    const db = openSqlite(':memory:');
    db.exec(OLD_SCHEMA);
    const doc = (isSpam: boolean) =>
      JSON.stringify({ fields: [], files: [], spam: { isSpam, reasons: [] }, held: false });
    const insert = db.prepare('INSERT INTO submissions VALUES (?, ?, ?, ?, ?)');
    insert.run('a', 'f', 'org-a', '2026-01-01T23:00:00.000Z', doc(true));
    insert.run('b', 'f', 'org-a', '2026-01-02T01:00:00.000Z', doc(false));
    insert.run('c', 'f', 'org-a', '2026-01-02T02:00:00.000Z', doc(true));
    db.prepare('INSERT INTO form_counters VALUES (?, ?)').run('f', 3);
    createSqliteFormsStore(db);
    expect(db.prepare('SELECT submissions, spam, last_at FROM form_counters').get()).toEqual({
      submissions: 3,
      spam: 2,
      last_at: '2026-01-02T02:00:00.000Z',
    });
    expect(db.prepare('SELECT day, total, spam FROM form_days ORDER BY day').all()).toEqual([
      { day: '2026-01-01', total: 1, spam: 1 },
      { day: '2026-01-02', total: 2, spam: 1 },
    ]);
    // Opening it again changes nothing.
    createSqliteFormsStore(db);
    expect(db.prepare('SELECT SUM(total) AS n FROM form_days').get()).toEqual({ n: 3 });
  });
});
