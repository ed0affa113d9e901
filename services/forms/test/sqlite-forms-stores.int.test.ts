import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS } from '@formgate/contracts';
import { openSqlite, runSqliteMigrations, sqliteSchemaVersion } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { FORMS_MIGRATION_SCOPE } from '../src/store/forms-stores.ts';
import { sqliteFormsMigrations } from '../src/store/sqlite/migrations/index.ts';
import { runFormsStoresContracts } from './forms-stores.contract.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

runFormsStoresContracts({ name: 'sqlite', create: async () => openSqliteFormsStores() });

describe('sqlite forms store migrations', () => {
  it('bring an empty database to the latest shape, once', () => {
    const db = openSqlite(':memory:');
    openSqliteFormsStores(db);
    expect(sqliteSchemaVersion(db, FORMS_MIGRATION_SCOPE)).toBe(sqliteFormsMigrations.length);
    const names = (type: string) =>
      (db.prepare('SELECT name FROM sqlite_schema WHERE type = ? ORDER BY name').all(type) as { name: string }[])
        .map((r) => r.name)
        .filter((n) => !n.startsWith('sqlite_') && !n.startsWith('submissions_fts_'));
    expect(names('table')).toEqual([
      'blocked_days',
      'blocked_reports',
      'erasures',
      'form_counters',
      'form_days',
      'form_deletions',
      'form_field_names',
      'forms',
      'org_retention',
      'release_ledgers',
      'schema_migrations',
      'submission_addresses',
      'submission_changes',
      'submission_files',
      'submission_search',
      'submissions',
      'submissions_fts',
    ]);
    expect(names('index')).toEqual([
      'blocked_days_by_org',
      'erasures_by_org',
      'erasures_unaudited',
      'forms_unpublished',
      'submission_addresses_by_submission',
      'submission_files_by_submission',
      'submissions_by_held',
      'submissions_by_position',
      'submissions_by_spam',
      'submissions_by_time',
      'submissions_held_by_org',
      'submissions_live_by_time',
    ]);
    expect(names('trigger')).toEqual([
      'forms_field_names_delete',
      'submission_files_delete',
      'submission_files_emptied',
      'submissions_addresses_delete',
      'submissions_addresses_forget',
      'submissions_csv_line_forget',
      'submissions_search_delete',
      'submissions_search_update',
    ]);
    const columns = (table: string) =>
      (db.prepare(`SELECT name FROM pragma_table_xinfo('${table}')`).all() as { name: string }[]).map((r) => r.name);
    expect(columns('submissions')).toEqual([
      'id',
      'form_id',
      'org_id',
      'created_at',
      'doc',
      'seq',
      'deleted',
      'spam',
      'held',
      'csv_line',
      'csv_width',
    ]);
    expect(columns('form_counters')).toEqual(['form_id', 'submissions', 'next_seq', 'spam', 'last_at', 'held']);
    // A second boot finds nothing to do.
    expect(() => openSqliteFormsStores(db)).not.toThrow();
    expect(sqliteSchemaVersion(db, FORMS_MIGRATION_SCOPE)).toBe(sqliteFormsMigrations.length);
  });
  it('migration 4 upgrades a store of the previous shape: the position index covers kept lines, long ones are dropped', async () => {
    const db = openSqlite(':memory:');
    runSqliteMigrations(db, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations.slice(0, 3));
    const scope = { orgId: 'org-a' };
    const f = randomUUID();
    db.prepare(
      `INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, 's', 'k', '{}', 1, '')`,
    ).run(f, scope.orgId);
    const long = 'x'.repeat(1_000);
    // Rows as the build of migration 3 wrote them.
    const insert = db.prepare(
      `INSERT INTO submissions (id, form_id, org_id, created_at, doc, seq, csv_line, csv_width)
       VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', ?, ?, ?, 1)`,
    );
    for (const [seq, [id, value]] of [
      ['s1', 'short'],
      ['s2', long],
    ].entries()) {
      const doc = { fields: [{ name: 'msg', value }], files: [], spam: { isSpam: false, reasons: [] }, held: false };
      insert.run(id, f, scope.orgId, JSON.stringify(doc), seq, `${id},2026-01-01T00:00:00.000Z,false,${value}`);
    }
    db.prepare('INSERT INTO form_counters (form_id, submissions, next_seq) VALUES (?, 2, 2)').run(f);
    db.prepare(`INSERT INTO form_field_names (form_id, name) VALUES (?, 'msg')`).run(f);
    const indexed = () =>
      (db.prepare(`SELECT name FROM pragma_index_info('submissions_by_position')`).all() as { name: string }[]).map(
        (r) => r.name,
      );
    expect(indexed()).toEqual(['form_id', 'seq']);
    // The previous build kept every line, however long.
    expect(db.prepare('SELECT COUNT(*) AS n FROM submissions WHERE csv_line IS NULL').get()).toEqual({ n: 0 });

    const stores = openSqliteFormsStores(db);
    expect(sqliteSchemaVersion(db, FORMS_MIGRATION_SCOPE)).toBe(sqliteFormsMigrations.length);
    expect(indexed()).toEqual(['form_id', 'seq', 'deleted', 'org_id', 'csv_width', 'csv_line']);
    const kept = db.prepare('SELECT id, csv_line IS NOT NULL AS kept FROM submissions ORDER BY seq').all();
    expect(kept).toEqual([
      { id: 's1', kept: 1 },
      { id: 's2', kept: 0 },
    ]);
    const lines: string[] = [];
    for await (const batch of stores.submissions.exportCsvLines(scope, f, {}, ['msg'])) lines.push(...batch);
    expect(lines).toEqual([
      `s2,2026-01-01T00:00:00.000Z,false,${long}\r\n`,
      's1,2026-01-01T00:00:00.000Z,false,short\r\n',
    ]);
    // A line too long to keep is not kept by the insert either.
    await stores.submissions.insertSubmissions([
      {
        id: 's3',
        formId: f,
        orgId: scope.orgId,
        createdAt: '2026-01-01T00:00:00.000Z',
        fields: [{ name: 'msg', value: long }],
        files: [],
        spam: { isSpam: false, reasons: [] },
        held: false,
      },
    ]);
    expect(db.prepare(`SELECT csv_line FROM submissions WHERE id = 's3'`).get()).toEqual({ csv_line: null });
  });
});

describe('sqlite forms stores: filters and search', () => {
  it('keeps the search index and field names in step with every insert, delete and change of a document', async () => {
    const db = openSqlite(':memory:');
    const stores = openSqliteFormsStores(db);
    const scope = { orgId: 'org-a' };
    const f = randomUUID();
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
    db.prepare(
      `INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, 's', 'k', '{}', 1, '')`,
    ).run(f, scope.orgId);
    await stores.submissions.insertSubmissions([record('s1', 'hello world'), record('s2', 'goodbye world')]);
    const search = async (word: string) =>
      (await stores.submissions.findSubmissions(scope, f, { filter: { terms: [word] }, limit: 10 })).map((r) => r.id);
    expect(await search('world')).toEqual(['s2', 's1']);
    expect(await stores.submissions.listFieldNames(scope, f)).toEqual(['msg']);
    await stores.submissions.insertSubmissions([record('s3', 'hello again')]);
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

  it('exports a row without a kept CSV line (stored before lines were kept, or changed since) from its document', async () => {
    const db = openSqlite(':memory:');
    const stores = openSqliteFormsStores(db);
    const scope = { orgId: 'org-a' };
    const f = randomUUID();
    db.prepare(
      `INSERT INTO forms (id, org_id, slug, key, doc, version, created_at) VALUES (?, ?, 's', 'k', '{}', 1, '')`,
    ).run(f, scope.orgId);
    const record = (id: string, fields: { name: string; value: string }[]) => ({
      id,
      formId: f,
      orgId: scope.orgId,
      createdAt: '2026-01-01T00:00:00.000Z',
      fields,
      files: [],
      spam: { isSpam: false, reasons: [] },
      held: false,
    });
    await stores.submissions.insertSubmissions([
      record('s1', [{ name: 'a', value: 'one' }]),
      record('s2', [{ name: 'b', value: 'two, three' }]),
    ]);
    const kept = db.prepare('SELECT id, csv_line, csv_width FROM submissions ORDER BY seq').all();
    expect(kept).toEqual([
      { id: 's1', csv_line: 's1,2026-01-01T00:00:00.000Z,false,one', csv_width: 1 },
      { id: 's2', csv_line: 's2,2026-01-01T00:00:00.000Z,false,,"two, three"', csv_width: 2 },
    ]);
    // A change of the document forgets the line; so does a row from before migration 3 (NULL).
    db.prepare(`UPDATE submissions SET doc = json_set(doc, '$.fields[0].value', 'uno') WHERE id = 's1'`).run();
    db.prepare(`UPDATE submissions SET csv_line = NULL, csv_width = NULL WHERE id = 's2'`).run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM submissions WHERE csv_line IS NULL').get()).toEqual({ n: 2 });
    const lines: string[] = [];
    for await (const batch of stores.submissions.exportCsvLines(scope, f, {}, ['a', 'b'])) lines.push(...batch);
    expect(lines).toEqual([
      's2,2026-01-01T00:00:00.000Z,false,,"two, three"\r\n',
      's1,2026-01-01T00:00:00.000Z,false,uno,\r\n',
    ]);
  });

  it('deleting a submission erases its origin, referer and spam details with its fields', async () => {
    const db = openSqlite(':memory:');
    const stores = openSqliteFormsStores(db);
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
    await stores.forms.insertForm(form);
    await stores.submissions.insertSubmissions([
      {
        id: 'd1',
        formId: form.id,
        orgId: form.orgId,
        createdAt: now,
        fields: [{ name: 'msg', value: 'x' }],
        files: [],
        spam: { isSpam: true, reasons: [{ layer: 'rules', rule: 'blocked-word', detail: 'blocked word quuxword' }] },
        held: false,
        origin: 'https://shop.example',
        referer: 'https://shop.example/contact',
      },
    ]);
    const doc = () => (db.prepare('SELECT doc FROM submissions WHERE id = ?').get('d1') as { doc: string }).doc;
    expect(doc()).toContain('https://shop.example/contact');
    const change = { id: randomUUID(), occurredAt: now };
    expect(await stores.changes.changeSubmission({ orgId: form.orgId }, form.id, 'd1', 'delete', change)).toBe(
      'changed',
    );
    expect(doc()).not.toContain('shop.example');
    expect(doc()).not.toContain('quuxword');
    expect(JSON.parse(doc())).toMatchObject({
      fields: [],
      files: [],
      spam: { isSpam: true, reasons: [{ layer: 'rules', rule: 'blocked-word', detail: '' }] },
    });
  });

  it('never finds a tombstone (`deleted = 1`)', async () => {
    const db = openSqlite(':memory:');
    const stores = openSqliteFormsStores(db);
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
    await stores.submissions.insertSubmissions([record('t1'), record('t2')]);
    db.prepare('UPDATE submissions SET deleted = 1 WHERE id = ?').run('t1');
    const ids = async (filter: { terms?: string[]; held?: boolean }) =>
      (await stores.submissions.findSubmissions(scope, f, { filter, limit: 10 })).map((r) => r.id);
    expect(await ids({ terms: ['kept'] })).toEqual(['t2']);
    expect(await ids({ held: false })).toEqual(['t2']);
    const exported: string[] = [];
    for await (const batch of stores.submissions.exportSubmissions(scope, f, {}))
      exported.push(...batch.map((r) => r.id));
    expect(exported).toEqual(['t2']);
  });

  it('reads a filtered page through an index in list order, without sorting', () => {
    const db = openSqlite(':memory:');
    openSqliteFormsStores(db);
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
    openSqliteFormsStores(db);
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
