import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import { ingestClient } from './ingest-client.ts';

/** A submission's `Origin` and `Referer` (docs/ingest.md) as the API answers them, embedded mode. */
describe('ingest: the submitting page’s Origin and Referer are recorded as text', () => {
  let app: TestApp;
  let client: ReturnType<typeof ingestClient>;
  let form: TestForm;
  beforeAll(async () => {
    app = await startTestApp();
    client = ingestClient(app);
    form = await app.createForm({ name: 'Source' });
  });
  afterAll(async () => {
    await app.stop();
  });

  /** Posts with `headers`, then reads the submission back through the API, single and in the list. */
  const sourceOf = async (headers: Record<string, string>) => {
    const id = await client.acceptedId(await client.postForm(form.key, 'message=hi', headers));
    const res = await eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(got.status).toBe(200);
      return got;
    });
    const listed = await app.listSubmissions(form.id, '?limit=1');
    const one = res.body as { origin: unknown; referer: unknown; fields: unknown };
    expect(listed.data[0]).toMatchObject({ id, origin: one.origin, referer: one.referer });
    expect(one.fields).toEqual([{ name: 'message', value: 'hi' }]);
    return { origin: one.origin, referer: one.referer };
  };

  it('keeps an http(s) Origin and the Referer without its fragment or credentials', async () => {
    expect(
      await sourceOf({
        origin: 'https://shop.example',
        referer: 'https://user:secret@shop.example/contact?ref=ad&q=<b>#thanks',
      }),
    ).toEqual({ origin: 'https://shop.example', referer: 'https://shop.example/contact?ref=ad&q=%3Cb%3E' });
    expect(await sourceOf({ origin: 'http://localhost:8080', referer: 'http://localhost:8080/' })).toEqual({
      origin: 'http://localhost:8080',
      referer: 'http://localhost:8080/',
    });
  });

  it('answers null when the request had neither', async () => {
    expect(await sourceOf({})).toEqual({ origin: null, referer: null });
  });

  it('drops anything but an absolute http(s) URL', async () => {
    expect(
      await sourceOf({ origin: 'javascript:alert(1)', referer: 'javascript:alert(1)//https://x.example/' }),
    ).toEqual({ origin: null, referer: null });
    expect(await sourceOf({ origin: 'null', referer: 'data:text/html,<script>alert(1)</script>' })).toEqual({
      origin: null,
      referer: null,
    });
    expect(await sourceOf({ origin: 'shop.example', referer: '/contact' })).toEqual({ origin: null, referer: null });
    expect(await sourceOf({ origin: 'ftp://shop.example', referer: 'file:///etc/passwd' })).toEqual({
      origin: null,
      referer: null,
    });
  });

  it('cuts a long Referer to 2,048 characters', async () => {
    const long = `https://shop.example/${'a'.repeat(5_000)}`;
    const { referer } = await sourceOf({ referer: long });
    expect(referer).toBe(long.slice(0, 2_048));
  });
});
