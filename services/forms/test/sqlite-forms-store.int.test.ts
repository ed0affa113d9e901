import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS } from '@formgate/contracts';
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

  it('counts the held submissions it already had as held only (issue 13), once', async () => {
    const db = openSqlite(':memory:');
    db.exec(OLD_SCHEMA);
    const doc = (isSpam: boolean, held: boolean) =>
      JSON.stringify({ fields: [], files: [], spam: { isSpam, reasons: [] }, held });
    const insert = db.prepare('INSERT INTO submissions VALUES (?, ?, ?, ?, ?)');
    insert.run('a', 'f', 'org-a', '2026-01-01T23:00:00.000Z', doc(true, false));
    insert.run('b', 'f', 'org-a', '2026-01-02T01:00:00.000Z', doc(false, true));
    insert.run('c', 'f', 'org-a', '2026-01-02T02:00:00.000Z', doc(false, false));
    db.prepare('INSERT INTO form_counters VALUES (?, ?)').run('f', 3);
    createSqliteFormsStore(db);
    const counters = () => db.prepare('SELECT submissions, spam, held FROM form_counters').get();
    expect(counters()).toEqual({ submissions: 2, spam: 1, held: 1 });
    expect(db.prepare('SELECT day, total, spam FROM form_days ORDER BY day').all()).toEqual([
      { day: '2026-01-01', total: 1, spam: 1 },
      { day: '2026-01-02', total: 1, spam: 0 },
    ]);
    createSqliteFormsStore(db);
    expect(counters()).toEqual({ submissions: 2, spam: 1, held: 1 });
  });
});

describe('sqlite FormsStore: filters and search', () => {
  it('indexes the rows of a database from before search at open, and keeps them in step afterwards', async () => {
    const db = openSqlite(':memory:');
    const store = createSqliteFormsStore(db);
    const scope = { orgId: 'org-a' };
    const f = randomUUID();
    db.prepare(
      `INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, 's', 'k', '{}', 1, '')`,
    ).run(f, scope.orgId);
    const record = (id: string, value: string) => ({
      id,
      formId: f,
      orgId: scope.orgId,
      createdAt: '2026-01-01T00:00:00.000Z',
      fields: [{ name: 'msg', value }],
      files: [],
      spam: { isSpam: false, reasons: [] },
      held: false,
    });
    await store.insertSubmissions([record('s1', 'hello world'), record('s2', 'goodbye world')]);
    // As a database from before search: no FTS table, no triggers, no field names.
    db.exec(`DROP TRIGGER submissions_search_insert; DROP TRIGGER submissions_search_delete;
      DROP TABLE submissions_fts; DROP TABLE submission_search; DELETE FROM form_field_names;`);
    const reopened = createSqliteFormsStore(db);
    const search = async (word: string) =>
      (await reopened.findSubmissions(scope, f, { filter: { terms: [word] }, limit: 10 })).map((r) => r.id);
    expect(await search('world')).toEqual(['s2', 's1']);
    expect(await reopened.listFieldNames(scope, f)).toEqual(['msg']);
    await reopened.insertSubmissions([record('s3', 'hello again')]);
    expect(await search('hello')).toEqual(['s3', 's1']);
    db.prepare('DELETE FROM submissions WHERE id = ?').run('s1');
    expect(await search('hello')).toEqual(['s3']);
    expect(db.prepare('SELECT COUNT(*) AS n FROM submission_search').get()).toEqual({ n: 2 });
    // A changed document is indexed again in the same statement (e.g. a tombstone's fields emptied).
    db.prepare(`UPDATE submissions SET doc = json_set(doc, '$.fields', json('[]')) WHERE id = ?`).run('s3');
    expect(await search('hello')).toEqual([]);
    db.prepare(
      `UPDATE submissions SET doc = json_set(doc, '$.fields', json('[{"name":"m","value":"hello there"}]')) WHERE id = ?`,
    ).run('s3');
    expect(await search('there')).toEqual(['s3']);
  });

  it('deleting a submission erases its origin and referer with its fields', async () => {
    const db = openSqlite(':memory:');
    const store = createSqliteFormsStore(db);
    const now = new Date().toISOString();
    const form = {
      id: randomUUID(),
      orgId: 'org-d',
      name: 'C',
      slug: 'c',
      key: 'kd',
      settings: DEFAULT_FORM_SETTINGS,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await store.insertForm(form);
    await store.insertSubmissions([
      {
        id: 'd1',
        formId: form.id,
        orgId: form.orgId,
        createdAt: now,
        fields: [{ name: 'msg', value: 'x' }],
        files: [],
        spam: { isSpam: false, reasons: [] },
        held: false,
        origin: 'https://shop.example',
        referer: 'https://shop.example/contact',
      },
    ]);
    const doc = () => (db.prepare('SELECT doc FROM submissions WHERE id = ?').get('d1') as { doc: string }).doc;
    expect(doc()).toContain('https://shop.example/contact');
    const change = { id: randomUUID(), occurredAt: now };
    expect(await store.changeSubmission({ orgId: form.orgId }, form.id, 'd1', 'delete', change)).toBe('changed');
    expect(doc()).not.toContain('shop.example');
    expect(JSON.parse(doc())).toMatchObject({ fields: [], files: [] });
  });

  it('never finds a tombstone (`deleted = 1`)', async () => {
    const db = openSqlite(':memory:');
    const store = createSqliteFormsStore(db);
    const scope = { orgId: 'org-t' };
    const f = randomUUID();
    const record = (id: string) => ({
      id,
      formId: f,
      orgId: scope.orgId,
      createdAt: '2026-01-01T00:00:00.000Z',
      fields: [{ name: 'msg', value: 'kept words' }],
      files: [],
      spam: { isSpam: false, reasons: [] },
      held: false,
    });
    await store.insertSubmissions([record('t1'), record('t2')]);
    db.prepare('UPDATE submissions SET deleted = 1 WHERE id = ?').run('t1');
    const ids = async (filter: { terms?: string[]; held?: boolean }) =>
      (await store.findSubmissions(scope, f, { filter, limit: 10 })).map((r) => r.id);
    expect(await ids({ terms: ['kept'] })).toEqual(['t2']);
    expect(await ids({ held: false })).toEqual(['t2']);
    const exported: string[] = [];
    for await (const batch of store.exportSubmissions(scope, f, {})) exported.push(...batch.map((r) => r.id));
    expect(exported).toEqual(['t2']);
  });

  it('reads a filtered page through an index in list order, without sorting', () => {
    const db = openSqlite(':memory:');
    createSqliteFormsStore(db);
    const plan = (where: string) =>
      (
        db
          .prepare(`EXPLAIN QUERY PLAN SELECT s.* FROM submissions s WHERE ${where} ORDER BY s.seq DESC LIMIT 26`)
          .all('f', 'o', 5) as { detail: string }[]
      )
        .map((r) => r.detail)
        .join('; ');
    expect(plan('s.form_id = ? AND s.org_id = ? AND s.spam = 1 AND s.seq < ?')).toMatch(
      /USING INDEX submissions_by_spam \(form_id=\? AND spam=\? AND seq<\?\)$/,
    );
    expect(plan('s.form_id = ? AND s.org_id = ? AND s.held = 0 AND s.seq < ?')).toMatch(
      /USING INDEX submissions_by_held \(form_id=\? AND held=\? AND seq<\?\)$/,
    );
  });

  it('reads a search page from the FTS index newest first, stopping at the limit (no sort of all matches)', () => {
    const db = openSqlite(':memory:');
    createSqliteFormsStore(db);
    const details = (
      db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT s.id FROM submissions_fts f
           CROSS JOIN submission_search ss ON ss.id = f.rowid CROSS JOIN submissions s ON s.id = ss.submission_id
           WHERE submissions_fts MATCH 'x' AND f.rowid <= 9 AND s.form_id = 'f' AND s.org_id = 'o'
           ORDER BY f.rowid DESC LIMIT 26`,
        )
        .all() as { detail: string }[]
    ).map((r) => r.detail);
    expect(details[0]).toMatch(/^SCAN f VIRTUAL TABLE INDEX/);
    expect(details.join('; ')).not.toMatch(/TEMP B-TREE/);
  });
});
