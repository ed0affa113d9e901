import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import {
  expectRejected,
  field,
  ingestClient,
  JSON_CLIENT,
  MULTIPART,
  multipart,
  rawExchange,
  URLENCODED,
} from './ingest-client.ts';

const MB = 1024 * 1024;
/** CPU this process spends while otherwise idle for `ms` (e.g. a decompressor still running after an answer). */
async function cpuMillisDuring(ms: number): Promise<number> {
  const start = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}
const nested = (depth: number, open: string, close: string) => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe('ingest: bad input over HTTP stores nothing', () => {
  let app: TestApp;
  let client: ReturnType<typeof ingestClient>;
  let form: TestForm;
  beforeAll(async () => {
    app = await startTestApp();
    client = ingestClient(app);
  });
  afterAll(async () => {
    await app.stop();
  });
  const freshForm = async (settings: Record<string, unknown> = {}) => {
    form = await app.createForm({ name: 'Bad input', settings });
    return form;
  };

  describe('C1 oversized bodies', () => {
    it('rejects a 10 MB urlencoded body with 413 PAYLOAD_TOO_LARGE', async () => {
      await freshForm();
      await expectRejected(await client.postForm(form.key, `a=${'x'.repeat(10 * MB)}`), 413, 'PAYLOAD_TOO_LARGE');
      await client.expectNothingStored(form);
    });

    it('rejects a 10 MB JSON body with 413 PAYLOAD_TOO_LARGE', async () => {
      await freshForm();
      await expectRejected(await client.postJson(form.key, `{"a":"${'x'.repeat(10 * MB)}"}`), 413, 'PAYLOAD_TOO_LARGE');
      await client.expectNothingStored(form);
    });

    it('rejects a body declaring 1 GB at once, without waiting for it', async () => {
      await freshForm();
      const head = `POST /f/${form.key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nAccept: application/json\r\nContent-Length: 1000000000\r\n\r\n`;
      const answer = await rawExchange(app, head, Buffer.alloc(64 * 1024, 'a'));
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\naccess-control-allow-origin: \*\r\n/i);
      expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
      await client.expectNothingStored(form);
    });

    it('answers a Content-Length of 0 followed by 10 MB with a 4xx and stores nothing', async () => {
      await freshForm();
      const head = `POST /f/${form.key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n`;
      expect(await rawExchange(app, head, Buffer.alloc(10 * MB, 'a'))).toMatch(/^HTTP\/1\.1 4\d\d /);
      await client.expectNothingStored(form);
    });

    it('rejects a chunked 10 MB body without Content-Length with 413, counting as it streams', async () => {
      await freshForm();
      const chunks = Readable.from(
        (function* () {
          yield Buffer.from('a=');
          for (let i = 0; i < 10; i++) yield Buffer.alloc(MB, 'x');
        })(),
      );
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { ...URLENCODED, ...JSON_CLIENT },
        body: Readable.toWeb(chunks) as ReadableStream,
        duplex: 'half',
      });
      await expectRejected(res, 413, 'PAYLOAD_TOO_LARGE');
      await client.expectNothingStored(form);
    });

    it('rejects a gzip bomb (50 MB of zeros) with 413 on its decompressed size, with flat memory', async () => {
      await freshForm();
      const bomb = gzipSync(Buffer.alloc(50e6));
      expect(bomb.length).toBeLessThan(64 * 1024);
      const before = process.memoryUsage().rss;
      await expectRejected(
        await client.postForm(form.key, bomb, { 'content-encoding': 'gzip' }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await expectRejected(
        await client.postJson(form.key, bomb, { 'content-encoding': 'gzip' }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB);
      await client.expectNothingStored(form);
    });

    it('rejects a multipart gzip bomb (2 GB of zeros) with 413, and stops inflating it', async () => {
      await freshForm();
      const member = gzipSync(Buffer.alloc(50e6));
      const bomb = Buffer.concat(Array.from({ length: 40 }, () => member));
      const before = process.memoryUsage().rss;
      await expectRejected(
        await client.postMultipart(form.key, bomb, { 'content-encoding': 'gzip' }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB);
      // Inflating on would keep a core busy (~1,000 ms a second); the worker's other tests and the deployment's
      // background work take some (182 ms seen on a loaded CI machine), so the line is half a core.
      expect(await cpuMillisDuring(1_000)).toBeLessThan(500);
      await client.expectNothingStored(form);
    });

    it('accepts a well-formed gzip body', async () => {
      await freshForm();
      const id = await client.acceptedId(
        await client.postForm(form.key, gzipSync('zipped=yes'), { 'content-encoding': 'gzip' }),
      );
      expect((await client.storedOnly(form, id)).fields).toEqual([{ name: 'zipped', value: 'yes' }]);
    });

    it('rejects a body that is not valid gzip with 400 MALFORMED', async () => {
      await freshForm();
      await expectRejected(await client.postForm(form.key, 'a=1', { 'content-encoding': 'gzip' }), 400, 'MALFORMED');
      await client.expectNothingStored(form);
    });

    it('rejects an unknown Content-Encoding with 415', async () => {
      await freshForm();
      const res = await client.postForm(form.key, 'a=1', { 'content-encoding': 'compress' });
      await expectRejected(res, 415, 'UNSUPPORTED_CONTENT_ENCODING');
      const multi = await client.postMultipart(form.key, multipart([field('a', '1')]), { 'content-encoding': 'zstd' });
      await expectRejected(multi, 415, 'UNSUPPORTED_CONTENT_ENCODING');
      await client.expectNothingStored(form);
    });

    it('still answers a normal submission quickly after the bombs', async () => {
      await client.expectResponsive(await freshForm());
    });
  });

  describe('C2 deep JSON and C3 field counts', () => {
    it.each([
      ['objects', nested(10_000, '{"a":', '}')],
      ['arrays', `{"a":${nested(10_000, '[', ']')}}`],
      ['a top-level array', nested(10_000, '[', ']')],
    ])('rejects %s nested 10,000 deep with 400 JSON_TOO_DEEP, quickly', async (_label, body) => {
      await freshForm();
      const started = performance.now();
      const res = await client.postJson(form.key, body);
      expect(performance.now() - started).toBeLessThan(250);
      await expectRejected(res, 400, 'JSON_TOO_DEEP');
      await client.expectNothingStored(form);
    });

    it('rejects 100,000 urlencoded params with 413 TOO_MANY_FIELDS', async () => {
      await freshForm();
      await expectRejected(await client.postForm(form.key, 'x&'.repeat(100_000)), 413, 'TOO_MANY_FIELDS');
      await client.expectNothingStored(form);
    });

    it('rejects 10,000 JSON keys with 413 TOO_MANY_FIELDS', async () => {
      await freshForm();
      const body = JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])));
      await expectRejected(await client.postJson(form.key, body), 413, 'TOO_MANY_FIELDS');
      await client.expectNothingStored(form);
    });

    it('rejects 201 fields and accepts 200, never truncating', async () => {
      await freshForm();
      const body = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=${i}`).join('&');
      await expectRejected(await client.postForm(form.key, body(201)), 413, 'TOO_MANY_FIELDS');
      const id = await client.acceptedId(await client.postForm(form.key, body(200)));
      expect((await client.storedOnly(form, id)).fields).toHaveLength(200);
    });
  });

  describe('C6 store-hostile values', () => {
    it.each([
      ['a urlencoded value', URLENCODED, 'a=x%00y'],
      ['a urlencoded name', URLENCODED, 'a%00b=1'],
      ['a JSON value', { 'content-type': 'application/json' }, '{"a":"x\\u0000y"}'],
      ['a multipart value', MULTIPART, multipart([field('a', 'x\u0000y')])],
    ])('rejects NUL in %s with 400 INVALID_CHARACTER', async (_label, type, body) => {
      await freshForm();
      await expectRejected(await client.post(form.key, body, { ...type, ...JSON_CLIENT }), 400, 'INVALID_CHARACTER');
      await client.expectNothingStored(form);
    });

    it('rejects 1e400 with 400 MALFORMED rather than storing Infinity', async () => {
      await freshForm();
      await expectRejected(await client.postJson(form.key, '{"n":1e400}'), 400, 'MALFORMED');
      await expectRejected(await client.postJson(form.key, '{"list":[1,-1e400]}'), 400, 'MALFORMED');
      await client.expectNothingStored(form);
    });

    it('rejects a 100 KB value with 413 FIELD_VALUE_TOO_LONG and a 1 MB value with 413 PAYLOAD_TOO_LARGE', async () => {
      await freshForm();
      await expectRejected(await client.postForm(form.key, `v=${'x'.repeat(100_000)}`), 413, 'FIELD_VALUE_TOO_LONG');
      await expectRejected(await client.postJson(form.key, `{"v":"${'x'.repeat(MB)}"}`), 413, 'PAYLOAD_TOO_LARGE');
      await client.expectNothingStored(form);
    });

    it('stores -0, duplicate keys, lone surrogates and invalid UTF-8 deterministically', async () => {
      await freshForm();
      const json = '{"z":-0,"dup":"first","s":"a\\ud800b","dup":"last"}';
      const first = await client.acceptedId(await client.postJson(form.key, json));
      expect((await client.storedOnly(form, first)).fields).toEqual([
        { name: 'z', value: '0' },
        { name: 'dup', value: 'last' },
        { name: 's', value: 'a\uFFFDb' },
      ]);
      const other = await freshForm();
      const second = await client.acceptedId(await client.postForm(other.key, 'bad=%FFx&rtl=a%E2%80%AEb'));
      expect((await client.storedOnly(other, second)).fields).toEqual([
        { name: 'bad', value: '\uFFFDx' },
        { name: 'rtl', value: 'a\u202Eb' },
      ]);
    });
  });

  describe('C10 content types', () => {
    it.each([
      ['JSON sent as text/plain', { 'content-type': 'text/plain' }, '{"a":1}', 'UNSUPPORTED_CONTENT_TYPE'],
      ['no content type', {}, Buffer.from('a=1'), 'UNSUPPORTED_CONTENT_TYPE'],
      [
        'urlencoded in ISO-8859-1',
        { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
        'a=%E9',
        'UNSUPPORTED_CHARSET',
      ],
      ['JSON in UTF-16', { 'content-type': 'application/json; charset=utf-16' }, '{"a":1}', 'UNSUPPORTED_CHARSET'],
    ])('rejects %s with 415', async (_label, type, body, code) => {
      await freshForm();
      await expectRejected(await client.post(form.key, body, { ...type, ...JSON_CLIENT }), 415, code);
      await client.expectNothingStored(form);
    });

    it('rejects a urlencoded body sent as application/json with 400 MALFORMED', async () => {
      await freshForm();
      await expectRejected(await client.postJson(form.key, 'a=1&b=2'), 400, 'MALFORMED');
      await client.expectNothingStored(form);
    });

    it('accepts an explicit UTF-8 charset and a +json media type', async () => {
      await freshForm();
      const a = await client.acceptedId(
        await client.post(form.key, 'a=%C3%A9', {
          'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
          ...JSON_CLIENT,
        }),
      );
      expect((await client.storedOnly(form, a)).fields).toEqual([{ name: 'a', value: 'é' }]);
      const other = await freshForm();
      const b = await client.acceptedId(
        await client.post(other.key, '{"b":"1"}', { 'content-type': 'application/vnd.api+json', ...JSON_CLIENT }),
      );
      expect((await client.storedOnly(other, b)).fields).toEqual([{ name: 'b', value: '1' }]);
    });
  });

  describe('the endpoint’s protocol', () => {
    it('answers an unknown form with 404 FORM_NOT_FOUND', async () => {
      await expectRejected(await client.postForm('no-such-form-key', 'a=1'), 404, 'FORM_NOT_FOUND');
    });

    it('answers a disabled form with 403 INACTIVE', async () => {
      await freshForm();
      const patched = await app.api('PATCH', `/api/v1/forms/${form.id}`, { settings: { enabled: false } });
      expect(patched.status).toBe(200);
      await eventually(async () => expect((await client.postForm(form.key, 'a=1')).status).toBe(403));
      await expectRejected(await client.postForm(form.key, 'a=1'), 403, 'INACTIVE');
      await app.api('PATCH', `/api/v1/forms/${form.id}`, { settings: { enabled: true } });
      const id = await eventually(async () => client.acceptedId(await client.postForm(form.key, 'sentinel=1')));
      await client.storedOnly(form, id);
    });

    it('answers GET with 405 and Allow, on each public path', async () => {
      await freshForm();
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, { headers: JSON_CLIENT });
      expect(res.headers.get('allow')).toBe('POST');
      await expectRejected(res, 405, 'METHOD_NOT_ALLOWED');
      for (const [path, method, allow] of [
        ['altcha', 'POST', 'GET'],
        ['timestamp', 'DELETE', 'GET, HEAD'],
        ['uploads', 'GET', 'POST'],
      ]) {
        const other = await fetch(`${app.baseUrl}/f/${form.key}/${path}`, { method, headers: JSON_CLIENT });
        expect([path, other.status, other.headers.get('allow')]).toEqual([path, 405, allow]);
      }
      await client.expectNothingStored(form);
    });

    it('answers a CORS preflight with 204, any origin and no credentials', async () => {
      await freshForm();
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://anywhere.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, idempotency-key',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
      await client.expectNothingStored(form);
    });

    it('D12: ignores cookies, and sets none', async () => {
      await freshForm();
      const res = await client.postForm(form.key, 'a=1', {
        cookie: 'better-auth.session_token=victim; fg_session=victim',
        origin: 'https://attacker.example',
      });
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const id = await client.acceptedId(res);
      expect((await client.storedOnly(form, id)).fields).toEqual([{ name: 'a', value: '1' }]);
    });

    it('rejects a submission with only reserved fields with 422 EMPTY', async () => {
      await freshForm();
      await expectRejected(await client.postForm(form.key, '_subject=Hi&_gotcha=&form-name=x'), 422, 'EMPTY');
      await expectRejected(await client.postJson(form.key, '{}'), 422, 'EMPTY');
      await client.expectNothingStored(form);
    });

    it.each([
      ['300 characters', 'k'.repeat(300)],
      ['a space', 'retry key'],
      ['non-ASCII', 'clé'],
    ])('rejects an Idempotency-Key with %s with 400 INVALID_IDEMPOTENCY_KEY', async (_label, key) => {
      await freshForm();
      const res = await client.postForm(form.key, 'a=1', { 'idempotency-key': key });
      await expectRejected(res, 400, 'INVALID_IDEMPOTENCY_KEY');
      await client.expectNothingStored(form);
    });

    it('gives an HTML client an HTML error page with the message escaped', async () => {
      await freshForm();
      const res = await client.post(form.key, 'a=1', { 'content-type': 'text/<img src=x onerror=alert(1)>' });
      expect(res.status).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const html = await res.text();
      expect(html).toContain('text/&#60;img src=x onerror=alert(1)&#62;');
      expect(html).not.toContain('<img');
      await client.expectNothingStored(form);
    });

    it('redirects an HTML client to an allowed _error URL with ?error=EMPTY', async () => {
      await freshForm({ allowedOrigins: ['https://site.example'] });
      const res = await client.post(
        form.key,
        `_error=${encodeURIComponent('https://site.example/oops?x=1')}`,
        URLENCODED,
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('https://site.example/oops?x=1&error=EMPTY');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      await client.expectNothingStored(form);
    });

    it('never redirects to a foreign or javascript: _error URL', async () => {
      await freshForm({ allowedOrigins: ['https://site.example'] });
      const foreign = await client.post(form.key, '_error=https%3A%2F%2Fevil.example%2F', URLENCODED);
      expect(foreign.status).toBe(422);
      expect(foreign.headers.get('location')).toBeNull();
      const script = await client.post(form.key, '_error=javascript%3Aalert(1)', URLENCODED);
      expect(script.status).toBe(422);
      expect(await script.text()).not.toContain('javascript:');
      await client.expectNothingStored(form);
    });
  });
});
