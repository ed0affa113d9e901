import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../services/forms/src/files/file-links.ts';
import { eventually, startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';

/** Filters, search and export of `GET /api/v1/forms/{formId}/submissions[/export]` (docs/api.md), embedded mode. */
describe('embedded mode: filtering, searching and exporting submissions', () => {
  let app: TestApp;
  let form: TestForm;
  const ids: string[] = [];
  const sent = [
    { name: 'Alice Martin', message: 'Hello from Paris' },
    { name: 'Bob', message: '=HYPERLINK("http://evil.example","x")', _gotcha: 'bot' },
    { name: 'Élodie', message: 'Line one\nline "two", three' },
    { name: '@admin', message: '<script>alert(1)</script>', extra: '-2+3' },
    { name: 'Alice Dupont', message: 'near Lyon' },
  ];

  beforeAll(async () => {
    app = await startTestApp();
    form = await app.createForm({ name: 'Queries' });
    for (const body of sent) {
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { id: string }).id);
    }
    await eventually(async () => expect((await app.listSubmissions(form.id)).data).toHaveLength(sent.length));
  });
  afterAll(async () => {
    await app.stop();
  });

  const list = (query: string) => app.api('GET', `/api/v1/forms/${form.id}/submissions${query}`);
  const listedIds = async (query: string) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    return (res.body.data as { id: string }[]).map((s) => s.id);
  };
  const newestFirst = (...indexes: number[]) => indexes.map((i) => ids[i]);
  const errorOf = (res: { status: number; body: Record<string, unknown> }) => [
    res.status,
    (res.body.error as { code: string } | undefined)?.code,
  ];

  it('filters by spam and by date, and pages a filtered list from a position any filter may go on from', async () => {
    expect(await listedIds('?spam=true')).toEqual(newestFirst(1));
    expect(await listedIds('?spam=false')).toEqual(newestFirst(4, 3, 2, 0));
    expect(await listedIds('?held=true')).toEqual([]);
    expect(await listedIds('?from=2000-01-01&to=2100-01-01&held=false')).toEqual(newestFirst(4, 3, 2, 1, 0));
    expect(await listedIds(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);

    const first = await list('?spam=false&limit=3');
    const cursor = first.body.nextCursor as string;
    expect(await listedIds(`?spam=false&limit=3&cursor=${cursor}`)).toEqual(newestFirst(0));
    // A cursor is a position: with other filters, the next page is what matches them after it.
    expect(await listedIds(`?spam=true&limit=3&cursor=${cursor}`)).toEqual(newestFirst(1));
    expect(await listedIds(`?limit=3&cursor=${cursor}`)).toEqual(newestFirst(1, 0));
    const plain = (await list('?limit=2')).body.nextCursor as string;
    expect(await listedIds(`?spam=false&cursor=${plain}`)).toEqual(newestFirst(2, 0));
    expect(errorOf(await list('?spam=false&cursor=bm9wZQ'))).toEqual([400, 'INVALID_CURSOR']); // "nope"

    expect(errorOf(await list('?spam=yes'))).toEqual([400, 'VALIDATION_FAILED']);
    expect(errorOf(await list('?from=yesterday'))).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('searches field values, never treating the query as syntax', async () => {
    expect(await listedIds('?q=alice')).toEqual(newestFirst(4, 0));
    expect(await listedIds('?q=ALICE%20paris')).toEqual(newestFirst(0));
    expect(await listedIds('?q=elodie')).toEqual(newestFirst(2));
    expect(await listedIds('?q=alice&limit=1&spam=false')).toEqual(newestFirst(4));
    expect(await listedIds(`?q=${encodeURIComponent('"script" *')}`)).toEqual(newestFirst(3));
    expect(await listedIds(`?q=${encodeURIComponent('NEAR(lyon)')}`)).toEqual(newestFirst(4));
    expect(await listedIds(`?q=${encodeURIComponent('hello:paris')}`)).toEqual(newestFirst(0));
    expect(await listedIds(`?q=${encodeURIComponent('message:hello')}`)).toEqual([]); // `message` is a name
    expect(await listedIds('?q=message')).toEqual([]); // field names are not searched
    const page = await list('?q=alice&limit=1');
    expect(await listedIds(`?q=alice&limit=1&cursor=${page.body.nextCursor}`)).toEqual(newestFirst(0));
    expect(await listedIds(`?q=paris&limit=1&cursor=${page.body.nextCursor}`)).toEqual(newestFirst(0));
    expect(await listedIds(`?q=${encodeURIComponent('" OR "')}`)).toEqual([]); // the word "or"
    for (const q of ['"', '*', '" - ^', ' ', 'x'.repeat(201), 'a b c d e f g h i', 'y'.repeat(65)]) {
      expect(errorOf(await list(`?q=${encodeURIComponent(q)}`))).toEqual([400, 'FORMS_INVALID_SEARCH']);
    }
  });

  const download = (query: string, org?: string) =>
    app
      .apiKey(org ?? 'default')
      .then((key) =>
        fetch(`${app.baseUrl}/api/v1/forms/${form.id}/submissions/export${query}`, { headers: { 'x-api-key': key } }),
      );

  it('exports CSV with one column per field name, RFC 4180 quoting and formula cells neutralized', async () => {
    const res = await download('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${form.slug}-submissions.csv"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 BOM, for spreadsheets
    const text = bytes.subarray(3).toString('utf8');
    expect(text.startsWith('id,createdAt,spam,name,message,extra\r\n')).toBe(true);
    const rows = text.split('\r\n');
    expect(rows).toHaveLength(sent.length + 2); // header, rows, and the empty string after the last CRLF
    expect(rows[1]).toMatch(new RegExp(`^${ids[4]},[^,]+,false,Alice Dupont,near Lyon,$`));
    expect(rows[2]).toMatch(/,false,'@admin,<script>alert\(1\)<\/script>,'-2\+3$/);
    expect(rows[3]).toMatch(/,false,Élodie,"Line one\nline ""two"", three",$/);
    expect(rows[4]).toMatch(/,true,Bob,"'=HYPERLINK\(""http:\/\/evil.example"",""x""\)",$/);
    const filtered = await (await download('?q=alice&format=csv')).text();
    expect(
      filtered
        .split('\r\n')
        .slice(1, -1)
        .map((r) => r.split(',')[0]),
    ).toEqual(newestFirst(4, 0));
  });

  it('exports JSON and NDJSON, filtered like the list; another organization gets 404', async () => {
    const json = await download('?format=json&spam=false');
    expect(json.headers.get('content-disposition')).toBe(`attachment; filename="${form.slug}-submissions.json"`);
    const items = (await json.json()) as { id: string; fields: { name: string; value: string }[] }[];
    expect(items.map((s) => s.id)).toEqual(newestFirst(4, 3, 2, 0));
    expect(items[1]?.fields).toEqual([
      { name: 'name', value: '@admin' },
      { name: 'message', value: '<script>alert(1)</script>' },
      { name: 'extra', value: '-2+3' },
    ]);
    const ndjson = await (await download('?format=ndjson&spam=true')).text();
    expect(
      ndjson
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(newestFirst(1));
    expect((await (await download('?format=json&from=2100-01-01')).json()) as unknown[]).toEqual([]);
    expect((await download('?format=xml')).status).toBe(400);
    expect((await download('', 'other')).status).toBe(404);
  });
});

describe('embedded mode: signed links to uploaded files', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.stop();
  });

  it('links a member to a file that downloads without a session, as an inert attachment', async () => {
    const form = await app.createForm({ name: 'Uploads' });
    const body = new FormData();
    body.append('email', 'a@example.com');
    const html = '<html><script>alert(document.cookie)</script></html>';
    body.append('cv', new Blob([html], { type: 'text/html' }), '<script>x</script>évil".html');
    const posted = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body,
    });
    expect(posted.status).toBe(200);
    const { id } = (await posted.json()) as { id: string };
    const detail = await eventually(async () => {
      const res = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(res.status).toBe(200);
      return res.body as { files: { blobKey: string; filename: string }[] };
    });
    const [file] = detail.files;
    if (!file) throw new Error('no file listed');
    const linkPath = (fileId: string, submissionId = id) =>
      `/api/v1/forms/${form.id}/submissions/${submissionId}/files/${fileId}/link`;

    const link = await app.api('GET', linkPath(file.blobKey));
    expect(link.status).toBe(200);
    const { url, expiresAt } = link.body as { url: string; expiresAt: string };
    expect(url).toMatch(/^\/api\/v1\/files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);

    const download = await fetch(`${app.baseUrl}${url}`); // no API key, no cookie
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    // The name as ingest stored it, reduced to its last path part, quotes dropped, percent-encoded in filename*.
    const disposition = download.headers.get('content-disposition') ?? '';
    expect(disposition).toBe(attachmentDisposition(file.filename));
    expect(disposition).toMatch(
      /^attachment; filename="script>[^"/\\]*\.html"; filename\*=UTF-8''script%3E[\w%.-]*\.html$/,
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('cache-control')).toBe('private, no-store');
    expect(await download.text()).toBe(html);

    const [payload, signature] = url.slice('/api/v1/files/'.length).split('.') as [string, string];
    const tampered = `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${signature}`;
    for (const bad of [`/api/v1/files/${tampered}`, `/api/v1/files/${payload}.${'A'.repeat(43)}`, '/api/v1/files/x']) {
      const res = await fetch(`${app.baseUrl}${bad}`);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORMS_FILE_LINK_INVALID');
    }
    expect((await app.api('GET', linkPath('no_such_file_key'))).body.error).toMatchObject({
      code: 'FORMS_FILE_NOT_FOUND',
    });
    expect((await app.api('GET', linkPath(file.blobKey, 'no-such-submission'))).status).toBe(404);
    // Another organization cannot get a link to it.
    expect((await app.api('GET', linkPath(file.blobKey), undefined, 'other')).status).toBe(404);
  });
});
