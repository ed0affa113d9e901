import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/embedded-app.ts';
import { field, ingestClient, multipart } from './ingest-client.ts';

const HOSTILE_NAMES = ['a.b', '$where', '$gt', '_id', '__v', 'email[$ne]', 'constructor'];
/** The server runs in this process: a polluted prototype would show on any fresh object here. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const prototypeUntouched = () => {
  const probe = {} as Record<string, unknown>;
  expect(probe.isAdmin).toBeUndefined();
  expect(probe.x).toBeUndefined();
  expect(probe.y).toBeUndefined();
  expect(probe.length).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
};

describe('ingest: hostile field names are stored as literal data', () => {
  let app: TestApp;
  let client: ReturnType<typeof ingestClient>;
  beforeAll(async () => {
    app = await startTestApp();
    client = ingestClient(app);
  });
  afterAll(async () => {
    await app.stop();
  });

  it('stores a multipart part named "" as the empty field name, as urlencoded and JSON bodies do (found by schemathesis)', async () => {
    const form = await app.createForm({ name: 'Empty names' });
    const res = await client.postMultipart(form.key, multipart([field('', '0'), field('x', '')]));
    const stored = await client.storedOnly(form, await client.acceptedId(res));
    expect(stored.fields).toEqual([
      { name: '', value: '0' },
      { name: 'x', value: '' },
    ]);
  });

  describe('C4 prototype pollution', () => {
    it('stores bracketed __proto__ and constructor names literally, polluting nothing', async () => {
      const form = await app.createForm({ name: 'Proto urlencoded' });
      const res = await client.postForm(
        form.key,
        'a[__proto__][x]=1&__proto__[isAdmin]=1&constructor[prototype][y]=1&__proto__.isAdmin=true',
      );
      const stored = await client.storedOnly(form, await client.acceptedId(res));
      expect(stored.fields).toEqual([
        { name: 'a[__proto__][x]', value: '1' },
        { name: '__proto__[isAdmin]', value: '1' },
        { name: 'constructor[prototype][y]', value: '1' },
        { name: '__proto__.isAdmin', value: 'true' },
      ]);
      prototypeUntouched();
    });

    it('takes the qs DoS payload (CVE-2022-24999) without hanging, as three literal fields', async () => {
      const form = await app.createForm({ name: 'Proto qs' });
      const started = performance.now();
      const res = await client.postForm(form.key, 'a[__proto__]=b&a[__proto__]&a[length]=100000000');
      expect(performance.now() - started).toBeLessThan(1_000);
      const stored = await client.storedOnly(form, await client.acceptedId(res));
      expect(stored.fields).toEqual([
        { name: 'a[__proto__]', value: 'b' },
        { name: 'a[__proto__]', value: '' },
        { name: 'a[length]', value: '100000000' },
      ]);
      prototypeUntouched();
    });

    it('stores a JSON __proto__ key as a field literally named __proto__', async () => {
      const form = await app.createForm({ name: 'Proto JSON' });
      const res = await client.postJson(
        form.key,
        '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}},"ok":"1"}',
      );
      const stored = await client.storedOnly(form, await client.acceptedId(res));
      expect(stored.fields).toEqual([
        { name: '__proto__', value: '{"isAdmin":true}' },
        { name: 'constructor', value: '{"prototype":{"isAdmin":true}}' },
        { name: 'ok', value: '1' },
      ]);
      prototypeUntouched();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it('stores multipart __proto__ names literally', async () => {
      const form = await app.createForm({ name: 'Proto multipart' });
      const body = multipart([field('__proto__', 'p'), field('__proto__[isAdmin]', '1'), field('hasOwnProperty', 'h')]);
      const stored = await client.storedOnly(form, await client.acceptedId(await client.postMultipart(form.key, body)));
      expect(stored.fields).toEqual([
        { name: '__proto__', value: 'p' },
        { name: '__proto__[isAdmin]', value: '1' },
        { name: 'hasOwnProperty', value: 'h' },
      ]);
      prototypeUntouched();
    });
  });

  describe('C5 Mongo-hostile names', () => {
    const expected = HOSTILE_NAMES.map((name, i) => ({ name, value: `v${i}` }));

    it('stores them losslessly and in order from a urlencoded body', async () => {
      const form = await app.createForm({ name: 'Hostile urlencoded' });
      const body = new URLSearchParams(HOSTILE_NAMES.map((name, i): [string, string] => [name, `v${i}`])).toString();
      const stored = await client.storedOnly(form, await client.acceptedId(await client.postForm(form.key, body)));
      expect(stored.fields).toEqual(expected);
    });

    it('stores them losslessly and in order from a JSON body', async () => {
      const form = await app.createForm({ name: 'Hostile JSON' });
      const body = JSON.stringify(Object.fromEntries(HOSTILE_NAMES.map((name, i) => [name, `v${i}`])));
      const stored = await client.storedOnly(form, await client.acceptedId(await client.postJson(form.key, body)));
      expect(stored.fields).toEqual(expected);
    });

    it('stores them losslessly and in order from a multipart body', async () => {
      const form = await app.createForm({ name: 'Hostile multipart' });
      const body = multipart(HOSTILE_NAMES.map((name, i) => field(name, `v${i}`)));
      const stored = await client.storedOnly(form, await client.acceptedId(await client.postMultipart(form.key, body)));
      expect(stored.fields).toEqual(expected);
    });

    it('keeps operator-shaped values as plain text', async () => {
      const form = await app.createForm({ name: 'Hostile values' });
      const res = await client.postJson(form.key, '{"email":{"$ne":null},"$where":"sleep(1000)","q":{"$gt":""}}');
      const stored = await client.storedOnly(form, await client.acceptedId(res));
      expect(stored.fields).toEqual([
        { name: 'email', value: '{"$ne":null}' },
        { name: '$where', value: 'sleep(1000)' },
        { name: 'q', value: '{"$gt":""}' },
      ]);
    });
  });
});
