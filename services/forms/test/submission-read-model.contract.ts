import { randomUUID } from 'node:crypto';
import type { Form } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { csvRows } from '../src/store/csv-lines.ts';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { StoredSubmission, SubmissionFilter, SubmissionRecord } from '../src/store/records.ts';
import { words } from '../src/store/search-terms.ts';
import { form, org, submission } from './forms-fixtures.ts';
import type { FormsStoresTarget } from './forms-stores.contract.ts';

/** The guarantees of `SubmissionReadModel` (see its JSDoc). */
export function submissionReadModelContract(
  it: ContractIt,
  stores: () => FormsStores,
  target: Pick<FormsStoresTarget, 'unorderedExport'>,
) {
  /** Every page of a filtered list, following the cursor. */
  const findAll = async (scope: { orgId: string }, formId: string, filter: SubmissionFilter, limit = 3) => {
    const seen: StoredSubmission[] = [];
    let after: { seq: number } | undefined;
    for (;;) {
      const page = await stores().submissions.findSubmissions(scope, formId, {
        filter,
        limit,
        ...(after ? { after } : {}),
      });
      seen.push(...page);
      const last = page.at(-1);
      if (page.length < limit || !last) return seen.map((r) => r.id);
      after = { seq: last.seq };
    }
  };
  const exported = async (scope: { orgId: string }, formId: string, filter: SubmissionFilter) => {
    const ids: string[] = [];
    for await (const batch of stores().submissions.exportSubmissions(scope, formId, filter)) {
      expect(batch.length).toBeGreaterThan(0);
      ids.push(...batch.map((r) => r.id));
    }
    return target.unorderedExport ? ids.sort() : ids;
  };
  /** What `exported` must return for ids in list order. */
  const inExportOrder = (ids: (string | undefined)[]) => (target.unorderedExport ? [...ids].sort() : ids);

  it('inserts submissions idempotently and keeps the per-form count exact', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const batch = [1, 2, 3].map((i) => submission(f, `2026-01-01T00:00:0${i}.000Z`));
    expect(await stores().submissions.insertSubmissions(batch.slice(0, 2))).toBe(2);
    const extra = submission(f, '2026-01-01T00:00:09.000Z');
    expect(await stores().submissions.insertSubmissions([...batch, extra, batch[0] as SubmissionRecord])).toBe(2);
    expect(await stores().submissions.insertSubmissions(batch)).toBe(0);
    expect(await stores().submissions.countSubmissions(a, f.id)).toBe(4);
    expect(await stores().submissions.countSubmissions(org(), f.id)).toBe(0);
  });

  it('round-trips hostile field names and values in order', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const fields = [
      { name: 'a.b', value: '$x' },
      { name: '$where', value: '1 == 1' },
      { name: '__proto__', value: '{"isAdmin":true}' },
      { name: 'email[$ne]', value: '' },
      { name: '_id', value: 'x' },
      { name: 'a.b', value: 'again' },
      { name: 'unicode', value: 'é 🙂 \u202e' },
    ];
    const s = submission(f, new Date().toISOString(), { fields });
    await stores().submissions.insertSubmissions([s]);
    const got = await stores().submissions.getSubmission(a, f.id, s.id);
    expect(got?.fields).toEqual(fields);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('pages newest first with a keyset cursor, ties broken by id, scoped by organization', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const same = '2026-02-01T00:00:00.000Z';
    const records = [
      ...Array.from({ length: 5 }, () => submission(f, same)),
      submission(f, '2026-03-01T00:00:00.000Z'),
      submission(f, '2026-01-01T00:00:00.000Z'),
    ];
    await stores().submissions.insertSubmissions(records);
    const expected = [...records]
      .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1))
      .map((r) => r.id);
    const seen: string[] = [];
    let after: { seq: number } | undefined;
    for (let i = 0; i < 4; i++) {
      const page = await stores().submissions.listSubmissions(a, f.id, { limit: 2, ...(after ? { after } : {}) });
      seen.push(...page.map((r) => r.id));
      const last = page.at(-1);
      after = last ? { seq: last.seq } : undefined;
    }
    expect(seen).toEqual(expected);
    expect(await stores().submissions.listSubmissions(org(), f.id, { limit: 10 })).toEqual([]);
    expect(await stores().submissions.getSubmission(org(), f.id, records[0]?.id ?? '')).toBeNull();
  });

  it('returns a stored submission with every attribute', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const s = submission(f, '2026-04-01T10:00:00.123Z', {
      spam: {
        isSpam: true,
        reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
      },
      held: true,
      files: [{ field: 'cv', blobKey: 'k1', filename: 'cv.pdf', contentType: 'application/pdf', size: 10 }],
    });
    await stores().submissions.insertSubmissions([s]);
    expect(await stores().submissions.getSubmission(a, f.id, s.id)).toEqual({ ...s, seq: 0 });
  });

  it('round-trips origin and referer (absent when unknown) in reads, pages and searches; they are not searched', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const referer = `https://example.com/contact?x=${'é'.repeat(3)}&y=<script>"'`;
    const withSource = submission(f, '2026-04-02T10:00:00.000Z', {
      fields: [{ name: 'msg', value: 'hello' }],
      origin: 'https://example.com',
      referer,
    });
    const without = submission(f, '2026-04-02T10:00:01.000Z', { fields: [{ name: 'msg', value: 'hello' }] });
    await stores().submissions.insertSubmissions([withSource, without]);
    const got = await stores().submissions.getSubmission(a, f.id, withSource.id);
    expect(got).toEqual({ ...withSource, seq: 0 });
    expect(got?.origin).toBe('https://example.com');
    expect(got?.referer).toBe(referer);
    const plain = await stores().submissions.getSubmission(a, f.id, without.id);
    expect(plain).toEqual({ ...without, seq: 1 });
    expect(plain).not.toHaveProperty('origin');
    expect(plain).not.toHaveProperty('referer');
    const page = await stores().submissions.listSubmissions(a, f.id, { limit: 10 });
    expect(page.map((r) => [r.id, r.origin, r.referer])).toEqual([
      [without.id, undefined, undefined],
      [withSource.id, 'https://example.com', referer],
    ]);
    const found = await stores().submissions.findSubmissions(a, f.id, { filter: { terms: words('hello') }, limit: 10 });
    expect(found.find((r) => r.id === withSource.id)?.referer).toBe(referer);
    expect(await findAll(a, f.id, { terms: words('example') })).toEqual([]);
    expect(await findAll(a, f.id, { terms: words('contact') })).toEqual([]);
  });

  it('lists a later call’s submissions first, even when they are older by createdAt', async () => {
    const a = org();
    const [f, g] = [form(a.orgId), form(a.orgId)];
    await stores().forms.insertForm(f);
    await stores().forms.insertForm(g);
    const early = [submission(f, '2026-05-01T00:00:02.000Z'), submission(g, '2026-05-01T00:00:00.000Z')];
    const late = [submission(f, '2026-05-01T00:00:01.000Z'), submission(f, '2026-05-01T00:00:00.000Z')];
    await stores().submissions.insertSubmissions(early);
    await stores().submissions.insertSubmissions([...late, ...early]);
    const list = await stores().submissions.listSubmissions(a, f.id, { limit: 10 });
    expect(list.map((r) => [r.id, r.seq])).toEqual([
      [late[0]?.id, 2],
      [late[1]?.id, 1],
      [early[0]?.id, 0],
    ]);
    expect((await stores().submissions.listSubmissions(a, g.id, { limit: 10 })).map((r) => [r.id, r.seq])).toEqual([
      [early[1]?.id, 0],
    ]);
  });

  it('pages every stored submission once, in order, while new ones keep arriving', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString();
    const stored = Array.from({ length: 300 }, (_, i) => submission(f, at(i)));
    for (let i = 0; i < 300; i += 100) await stores().submissions.insertSubmissions(stored.slice(i, i + 100));
    const seen: string[] = [];
    let after: { seq: number } | undefined;
    for (let n = 0; ; n++) {
      const page = await stores().submissions.listSubmissions(a, f.id, { limit: 7, ...(after ? { after } : {}) });
      await stores().submissions.insertSubmissions([submission(f, at(n))]);
      seen.push(...page.map((r) => r.id));
      const last = page.at(-1);
      if (!last) break;
      after = { seq: last.seq };
    }
    expect(seen).toEqual(stored.map((s) => s.id).reverse());
    const newest = await stores().submissions.listSubmissions(a, f.id, { limit: 100 });
    expect(newest.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 300 + 43 - i));
    expect(await stores().submissions.countSubmissions(a, f.id)).toBe(300 + 44);
  });

  it('filters by spam, held and a date range, combined, in list order, paged with a cursor', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const spam = {
      isSpam: true,
      reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
    };
    const day = (d: number) => `2026-07-${String(d).padStart(2, '0')}T12:00:00.000Z`;
    const rs = Array.from({ length: 12 }, (_, i) =>
      submission(f, day(i + 1), { ...(i % 3 === 0 ? { spam } : {}), held: i % 2 === 0 }),
    );
    await stores().submissions.insertSubmissions(rs.slice(0, 6));
    await stores().submissions.insertSubmissions(rs.slice(6));
    const newestFirst = (keep: (r: SubmissionRecord, i: number) => boolean) =>
      rs
        .filter(keep)
        .map((r) => r.id)
        .reverse();
    expect(await findAll(a, f.id, {})).toEqual(newestFirst(() => true));
    expect(await findAll(a, f.id, { spam: true })).toEqual(newestFirst((r) => r.spam.isSpam));
    expect(await findAll(a, f.id, { spam: false })).toEqual(newestFirst((r) => !r.spam.isSpam));
    expect(await findAll(a, f.id, { held: true })).toEqual(newestFirst((r) => r.held));
    expect(await findAll(a, f.id, { held: false, spam: false })).toEqual(newestFirst((r) => !r.held && !r.spam.isSpam));
    expect(await findAll(a, f.id, { from: day(3), to: day(9) })).toEqual(newestFirst((_, i) => i >= 2 && i < 8));
    expect(await findAll(a, f.id, { from: day(3), to: day(9), spam: false, held: true })).toEqual(
      newestFirst((r, i) => i >= 2 && i < 8 && !r.spam.isSpam && r.held),
    );
    expect(await findAll(a, f.id, { from: '2026-07-12T12:00:00.001Z' })).toEqual([]);
    expect(await findAll(org(), f.id, {})).toEqual([]);
    expect(await exported(org(), f.id, {})).toEqual([]);
  });

  it('searches field values, whole words, ignoring case and diacritics, every term required', async () => {
    const a = org();
    const f = form(a.orgId);
    const g = form(a.orgId);
    await stores().forms.insertForm(f);
    await stores().forms.insertForm(g);
    let n = 0;
    const with_ = (...values: string[]) =>
      submission(f, `2026-08-01T00:00:0${n++}.000Z`, {
        fields: values.map((value, i) => ({ name: `f${i}`, value })),
      });
    const elodie = with_('Élodie Dupont', 'Paris');
    const bob = with_('bob@EXAMPLE.com', 'Lyon, near the river');
    const both = with_('ÉLODIE', 'lyon');
    const nameOnly = submission(f, '2026-08-01T00:00:00.000Z', { fields: [{ name: 'paris', value: 'x' }] });
    const hostile = with_('"quoted" * NEAR(a b) OR col:term', '<script>alert(1)</script>');
    await stores().submissions.insertSubmissions([elodie, bob, both, nameOnly, hostile]);
    await stores().submissions.insertSubmissions([
      submission(g, '2026-08-01T00:00:00.000Z', { fields: [{ name: 'n', value: 'elodie' }] }),
    ]);
    const search = (q: string, filter: SubmissionFilter = {}) => findAll(a, f.id, { ...filter, terms: words(q) });
    expect(await search('elodie')).toEqual([both.id, elodie.id]);
    expect(await search('ELODIE lyon')).toEqual([both.id]);
    expect(await search('example')).toEqual([bob.id]);
    expect(await search('paris')).toEqual([elodie.id]);
    expect(await search('elo')).toEqual([]);
    expect(await search('near')).toEqual([hostile.id, bob.id]);
    expect(await search('"quoted" * NEAR(')).toEqual([hostile.id]);
    expect(await search('col term')).toEqual([hostile.id]);
    expect(await search('script')).toEqual([hostile.id]);
    expect(await search('nothing')).toEqual([]);
    expect(await findAll(org(), f.id, { terms: ['elodie'] })).toEqual([]);
    expect(await exported(a, f.id, { terms: words('lyon') })).toEqual(inExportOrder([both.id, bob.id]));
  });

  it('exports every matching submission (in list order where the adapter sorts), across many read batches', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const at = (i: number) => new Date(Date.UTC(2026, 8, 1) + i * 1000).toISOString();
    const rs = Array.from({ length: 1_203 }, (_, i) =>
      submission(f, at(i), { held: i % 10 === 0, fields: [{ name: 'n', value: i % 2 ? 'odd' : 'even' }] }),
    );
    for (let i = 0; i < rs.length; i += 400) await stores().submissions.insertSubmissions(rs.slice(i, i + 400));
    const all = rs.map((r) => r.id).reverse();
    expect(await exported(a, f.id, {})).toEqual(inExportOrder(all));
    expect(await exported(a, f.id, { held: true })).toEqual(
      inExportOrder(
        rs
          .filter((r) => r.held)
          .map((r) => r.id)
          .reverse(),
      ),
    );
    expect(await exported(a, f.id, { terms: ['odd'], from: at(1000) })).toEqual(
      inExportOrder(
        rs
          .filter((_r, i) => i >= 1000 && i % 2 === 1)
          .map((r) => r.id)
          .reverse(),
      ),
    );
    let first: StoredSubmission | undefined;
    for await (const batch of stores().submissions.exportSubmissions(a, f.id, {})) {
      first = batch[0];
      break;
    }
    if (target.unorderedExport) expect(rs.map((r) => r.id)).toContain(first?.id);
    else expect(first).toEqual({ ...rs.at(-1), seq: 1_202 });
  });

  it('exports CSV lines exactly as csvRows formats each submission, as its columns grow and documents change', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const at = (i: number) => new Date(Date.UTC(2026, 9, 1) + i * 1000).toISOString();
    const field = (name: string, value: string) => ({ name, value });
    const early = [
      submission(f, at(1), { fields: [field('name', 'Ada'), field('note', '=SUM(A1)')] }),
      submission(f, at(2), { fields: [field('note', 'say "hi", twice\r\nok'), field('name', '')] }),
      submission(f, at(3), { fields: [], spam: { isSpam: true, reasons: [] } }),
    ];
    const late = [
      // A new column, a repeated field (one cell, its values joined by a line break) and an empty value in it.
      submission(f, at(4), { fields: [field('tag', 'x'), field('name', 'Bo'), field('tag', ''), field('tag', 'y')] }),
      submission(f, at(5), { fields: [field('tag', '-1'), field('email', 'c@example.com')] }),
      submission(f, at(6), { fields: [field('__proto__', 'p'), field('name', 'Cy')] }),
    ];
    await stores().submissions.insertSubmissions(early);
    await stores().submissions.insertSubmissions(late);
    // A changed document (marked spam) is exported as it is now.
    expect(
      await stores().changes.changeSubmission(a, f.id, early[0]?.id as string, 'spam', {
        id: `chg_${early[0]?.id}`,
        occurredAt: at(7),
      }),
    ).toBe('changed');
    const columns = await stores().submissions.listFieldNames(a, f.id);
    expect(columns).toEqual(['name', 'note', 'tag', 'email', '__proto__']);
    const lines = async (filter: SubmissionFilter, cols: readonly string[]) => {
      const out: string[] = [];
      for await (const batch of stores().submissions.exportCsvLines(a, f.id, filter, cols)) out.push(...batch);
      return out;
    };
    const formatted = async (filter: SubmissionFilter, cols: readonly string[]) => {
      const row = csvRows(cols);
      const out: string[] = [];
      for await (const batch of stores().submissions.exportSubmissions(a, f.id, filter)) out.push(...batch.map(row));
      return out;
    };
    for (const filter of [{}, { spam: true }, { terms: ['bo'] }, { from: at(4) }] as SubmissionFilter[]) {
      // Every column, a prefix of them (names first seen after the export read its columns) and none.
      for (const cols of [columns, columns.slice(0, 2), []]) {
        const [got, expected] = [await lines(filter, cols), await formatted(filter, cols)];
        expect(target.unorderedExport ? got.sort() : got).toEqual(target.unorderedExport ? expected.sort() : expected);
      }
    }
    const all = await lines({}, columns);
    expect(all).toHaveLength(6);
    expect(all).toContain(`${early[0]?.id},${at(1)},true,Ada,'=SUM(A1),,,\r\n`);
    expect(all).toContain(`${early[1]?.id},${at(2)},false,,"say ""hi"", twice\r\nok",,,\r\n`);
    expect(all).toContain(`${late[0]?.id},${at(4)},false,Bo,,"x\n\ny",,\r\n`);
    expect(all).toContain(`${late[1]?.id},${at(5)},false,,,'-1,c@example.com,\r\n`);
    expect(await lines({}, columns.slice(0, 1))).toContain(`${late[2]?.id},${at(6)},false,Cy\r\n`);
    expect(await lines({}, [])).toContain(`${early[2]?.id},${at(3)},true\r\n`);
    const foreign: string[] = [];
    for await (const batch of stores().submissions.exportCsvLines(org(), f.id, {}, columns)) foreign.push(...batch);
    expect(foreign).toEqual([]);
  });

  it('keeps each form’s field names in the order first seen, scoped, and forgets them with the organization', async () => {
    const a = org();
    const [f, g] = [form(a.orgId), form(a.orgId)];
    await stores().forms.insertForm(f);
    await stores().forms.insertForm(g);
    let n = 0;
    const named = (x: Form, ...names: string[]) =>
      submission(x, `2026-10-01T00:00:0${n++}.000Z`, { fields: names.map((name) => ({ name, value: 'v' })) });
    await stores().submissions.insertSubmissions([named(f, 'email', 'message', 'email'), named(g, 'other')]);
    const again = named(f, '$where', 'email', 'a.b');
    await stores().submissions.insertSubmissions([again, named(f, '__proto__')]);
    await stores().submissions.insertSubmissions([again]);
    expect(await stores().submissions.listFieldNames(a, f.id)).toEqual([
      'email',
      'message',
      '$where',
      'a.b',
      '__proto__',
    ]);
    expect(await stores().submissions.listFieldNames(a, g.id)).toEqual(['other']);
    expect(await stores().submissions.listFieldNames(org(), f.id)).toEqual([]);
    await stores().forms.purgeOrganization(a);
    expect(await stores().submissions.listFieldNames(a, f.id)).toEqual([]);
    expect(await findAll(a, f.id, { terms: ['v'] })).toEqual([]);
  });

  it("drops a submission's content, keeping its metadata; searches, exports and erasures find nothing of it", async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const kept = submission(f, '2026-05-01T10:00:00.000Z', { fields: [{ name: 'note', value: 'zebraword' }] });
    const dropped = submission(f, '2026-05-01T11:00:00.000Z', {
      fields: [{ name: 'note', value: 'quokkaword ann@example.com' }],
      files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 3, blobKey: 'blob-q' }],
      spam: { isSpam: false, reasons: [] },
      origin: 'https://ann.example',
      referer: 'https://ann.example/contact',
      addressKeys: ['k-ann'],
    });
    await stores().submissions.insertSubmissions([kept, dropped]);

    expect(await stores().submissions.dropContent(org(), f.id, dropped.id)).toBe(false);
    expect(await stores().submissions.dropContent(a, f.id, dropped.id)).toBe(true);
    expect(await stores().submissions.dropContent(a, f.id, dropped.id)).toBe(true);
    const read = await stores().submissions.getSubmission(a, f.id, dropped.id);
    expect(read).toMatchObject({ id: dropped.id, createdAt: dropped.createdAt, fields: [], files: [] });
    expect(read?.contentDropped).toBe(true);
    expect(read?.origin).toBeUndefined();
    expect(read?.referer).toBeUndefined();
    expect(read?.spam).toEqual(dropped.spam);
    expect((await stores().submissions.getSubmission(a, f.id, kept.id))?.contentDropped).toBeUndefined();
    // Still listed and counted, as metadata.
    const page = await stores().submissions.listSubmissions(a, f.id, { limit: 10 });
    expect(page.map((s) => [s.id, s.fields.length])).toEqual([
      [dropped.id, 0],
      [kept.id, 1],
    ]);
    expect(await stores().submissions.countSubmissions(a, f.id)).toBe(2);
    expect(await findAll(a, f.id, { terms: ['quokkaword'] })).toEqual([]);
    expect(await findAll(a, f.id, { terms: ['zebraword'] })).toEqual([kept.id]);
    expect(await stores().erasures.findByAddressKeys(a, ['k-ann'])).toEqual([]);
    const lines: string[] = [];
    for await (const batch of stores().submissions.exportCsvLines(a, f.id, {}, ['note'])) lines.push(...batch);
    expect(lines.join('\n')).not.toContain('quokkaword');
    // A deleted one has nothing to drop.
    await stores().changes.changeSubmission(a, f.id, kept.id, 'delete', {
      id: `c-${kept.id}`,
      occurredAt: '2026-05-02T00:00:00.000Z',
    });
    expect(await stores().submissions.dropContent(a, f.id, kept.id)).toBe(false);

    // A spam one dropped, then marked not spam: nothing left to release (the change carries no submission).
    const spam = submission(f, '2026-05-01T12:00:00.000Z', { spam: { isSpam: true, reasons: [] } });
    await stores().submissions.insertSubmissions([spam]);
    expect(await stores().submissions.dropContent(a, f.id, spam.id)).toBe(true);
    const mark = { id: `c-${spam.id}`, occurredAt: '2026-05-02T00:00:00.000Z' };
    expect(await stores().changes.changeSubmission(a, f.id, spam.id, 'not-spam', mark)).toBe('changed');
    const pending = (await stores().changes.listUnpublishedSubmissionChanges(100_000)).find((c) => c.id === mark.id);
    expect(pending).toMatchObject({ action: 'not-spam', submissionId: spam.id });
    expect(pending?.submission).toBeUndefined();
  });
  it("records a file's scan on a live submission only, keeping everything else; lists, pages and exports read it", async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const file = (blobKey: string) => ({
      field: 'cv',
      filename: 'cv.pdf',
      contentType: 'application/pdf',
      size: 3,
      blobKey,
    });
    const scanned = submission(f, '2026-06-01T10:00:00.000Z', {
      fields: [{ name: 'note', value: 'walrusword' }],
      files: [file('blob-a1-xyz'), file('-blob_b2-xyz')],
      fileScans: { 'blob-a1-xyz': { status: 'pending' }, '-blob_b2-xyz': { status: 'pending' } },
    });
    const unscanned = submission(f, '2026-06-01T11:00:00.000Z', { files: [file('blob-c3-xyz')] });
    await stores().submissions.insertSubmissions([scanned, unscanned]);
    expect((await stores().submissions.getSubmission(a, f.id, unscanned.id))?.fileScans).toBeUndefined();

    const infected = {
      status: 'infected' as const,
      detail: 'Eicar-Test-Signature',
      scannedAt: '2026-06-01T10:00:05.000Z',
    };
    expect(await stores().submissions.recordFileScan(org(), f.id, scanned.id, 'blob-a1-xyz', infected)).toBe(false);
    expect(await stores().submissions.recordFileScan(a, 'form-other', scanned.id, 'blob-a1-xyz', infected)).toBe(false);
    expect(await stores().submissions.recordFileScan(a, f.id, scanned.id, 'blob-a1-xyz', infected)).toBe(true);
    expect(await stores().submissions.recordFileScan(a, f.id, scanned.id, 'blob-a1-xyz', infected)).toBe(true);
    const read = await stores().submissions.getSubmission(a, f.id, scanned.id);
    expect(read?.fileScans).toEqual({ 'blob-a1-xyz': infected, '-blob_b2-xyz': { status: 'pending' } });
    expect(read?.fields).toEqual(scanned.fields);
    expect(read?.files).toEqual(scanned.files);
    const [listed] = await stores().submissions.listSubmissions(a, f.id, {
      limit: 1,
      after: { seq: (read?.seq ?? 0) + 1 },
    });
    expect(listed?.fileScans).toEqual(read?.fileScans);
    expect(await findAll(a, f.id, { terms: ['walrusword'] })).toEqual([scanned.id]);
    const lines: string[] = [];
    for await (const batch of stores().submissions.exportCsvLines(a, f.id, {}, ['note'])) lines.push(...batch);
    const row = csvRows(['note']);
    expect([...lines].sort()).toEqual([unscanned, scanned].map(row).sort());
    await expect(
      stores().submissions.recordFileScan(a, f.id, scanned.id, 'fileScans.$where', infected),
    ).rejects.toThrow();

    // Dropped content or a deletion takes the scans with the files, and records no more.
    expect(await stores().submissions.dropContent(a, f.id, scanned.id)).toBe(true);
    expect((await stores().submissions.getSubmission(a, f.id, scanned.id))?.fileScans).toBeUndefined();
    expect(await stores().submissions.recordFileScan(a, f.id, scanned.id, '-blob_b2-xyz', { status: 'clean' })).toBe(
      false,
    );
    await stores().changes.changeSubmission(a, f.id, unscanned.id, 'delete', {
      id: `c-${unscanned.id}`,
      occurredAt: '2026-06-02T00:00:00.000Z',
    });
    expect(await stores().submissions.recordFileScan(a, f.id, unscanned.id, 'blob-c3-xyz', { status: 'clean' })).toBe(
      false,
    );
  });
  it('says which blob keys are files of stored submissions, whatever the organization; deleted or dropped ones are not', async () => {
    const a = org();
    const b = org();
    const fa = form(a.orgId);
    const fb = form(b.orgId);
    await stores().forms.insertForm(fa);
    await stores().forms.insertForm(fb);
    const file = (blobKey: string) => ({ field: 'f', filename: 'f.txt', contentType: 'text/plain', size: 1, blobKey });
    const u = () => `k${randomUUID().replaceAll('-', '')}`;
    const [k1, k2, k3, k4, k5] = [u(), u(), u(), u(), u()] as [string, string, string, string, string];
    const kept = submission(fa, '2026-07-01T10:00:00.000Z', { files: [file(k1), file(k2)] });
    const other = submission(fb, '2026-07-01T10:00:00.000Z', { files: [file(k3)] });
    const deleted = submission(fa, '2026-07-01T11:00:00.000Z', { files: [file(k4)] });
    const dropped = submission(fa, '2026-07-01T12:00:00.000Z', { files: [file(k5)] });
    await stores().submissions.insertSubmissions([kept, other, deleted, dropped]);
    await stores().submissions.insertSubmissions([kept]);
    const all = [k1, k2, k3, k4, k5, u()];
    expect([...(await stores().submissions.fileReferences(all))].sort()).toEqual([k1, k2, k3, k4, k5].sort());
    await stores().changes.changeSubmission(a, fa.id, deleted.id, 'delete', {
      id: `c-${deleted.id}`,
      occurredAt: '2026-07-02T00:00:00.000Z',
    });
    await stores().submissions.dropContent(a, fa.id, dropped.id);
    expect([...(await stores().submissions.fileReferences(all))].sort()).toEqual([k1, k2, k3].sort());
    expect(await stores().submissions.fileReferences([])).toEqual(new Set());
  });
}
