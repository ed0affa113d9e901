import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

describe('embedded mode: a submission’s whole journey', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.stop();
  });

  const post = (key: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });

  it('answers an HTML form with 303 to the thank-you page and stores the fields in order', async () => {
    const form = await app.createForm({ name: 'Contact' });
    const res = await post(form.key, 'email=a%40example.com&message=Hello+there&_subject=Hi', {
      referer: 'https://site.example/contact',
    });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.pathname).toBe('/form/submission-received');
    expect(location.searchParams.get('referer')).toBe('https://site.example/contact');
    const thanks = await fetch(location.href.replace(location.origin, app.baseUrl));
    expect(thanks.status).toBe(200);
    expect(thanks.headers.get('access-control-allow-origin')).toBe('*');
    const list = await eventually(async () => {
      const l = await app.listSubmissions(form.id);
      expect(l.data).toHaveLength(1);
      return l;
    });
    expect(list.data[0]?.fields).toEqual([
      { name: 'email', value: 'a@example.com' },
      { name: 'message', value: 'Hello there' },
    ]);
  });

  it('redirects to the form’s redirect URL, and to an allowed _next but never to another origin', async () => {
    const form = await app.createForm({
      name: 'Redirecting',
      settings: { redirectUrl: 'https://site.example/thanks', allowedOrigins: ['https://site.example'] },
    });
    expect((await post(form.key, 'a=1')).headers.get('location')).toBe('https://site.example/thanks');
    expect((await post(form.key, 'a=1&_next=https%3A%2F%2Fsite.example%2Fother')).headers.get('location')).toBe(
      'https://site.example/other',
    );
    expect((await post(form.key, 'a=1&_next=https%3A%2F%2Fevil.example%2F')).headers.get('location')).toBe(
      'https://site.example/thanks',
    );
  });

  it('answers JSON clients in Formspree’s format and lists newest first with a cursor', async () => {
    const form = await app.createForm({ name: 'Json' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ n: i }),
      });
      const body = (await res.json()) as { ok: boolean; id: string; next: string };
      expect(res.status).toBe(200);
      expect(body.ok).toBe(true);
      ids.push(body.id);
    }
    await eventually(async () => expect((await app.listSubmissions(form.id)).data).toHaveLength(5));
    const first = await app.listSubmissions(form.id, '?limit=3');
    const second = await app.listSubmissions(form.id, `?limit=3&cursor=${first.nextCursor}`);
    expect([...first.data, ...second.data].map((s) => s.id)).toEqual([...ids].reverse());
    expect(second.nextCursor).toBeNull();
    // Only the list's own cursors are taken: a [createdAt, id] pair, garbage or a negative position is refused.
    const last = first.data.at(-1) as { id: string; createdAt?: string };
    const pair = Buffer.from(JSON.stringify([last.createdAt, last.id])).toString('base64url');
    for (const cursor of [pair, 'not-a-cursor', Buffer.from('[-1]').toString('base64url')]) {
      const res = await app.api('GET', `/api/v1/forms/${form.id}/submissions?cursor=${cursor}`);
      expect([res.status, (res.body.error as { code: string }).code]).toEqual([400, 'INVALID_CURSOR']);
    }
  });

  it('keeps a client retry with the same Idempotency-Key as one submission with the original id', async () => {
    const form = await app.createForm({ name: 'Idempotent' });
    const send = () => post(form.key, 'x=1', { 'idempotency-key': 'retry-123', accept: 'application/json' });
    const a = (await (await send()).json()) as { id: string };
    const b = (await (await send()).json()) as { id: string };
    expect(b.id).toBe(a.id);
    await eventually(async () => expect((await app.listSubmissions(form.id)).data.map((s) => s.id)).toEqual([a.id]));
    await new Promise((r) => setTimeout(r, 100));
    expect((await app.api('GET', `/api/v1/forms/${form.id}`)).body.submissionCount).toBe(1);
  });

  it('stores a filled honeypot as spam while answering like a success', async () => {
    const form = await app.createForm({ name: 'Honeypot' });
    const res = await post(form.key, 'email=bot%40spam.example&_gotcha=gotcha');
    expect(res.status).toBe(303);
    const list = await eventually(async () => {
      const l = await app.listSubmissions(form.id);
      expect(l.data).toHaveLength(1);
      return l;
    });
    expect(list.data[0]?.spam).toBe(true);
  });

  it('counts non-spam submissions per organization in billing', async () => {
    const org = 'billing-org';
    const form = await app.createForm({ name: 'Billed' }, org);
    for (let i = 0; i < 3; i++) await post(form.key, `i=${i}`);
    await post(form.key, 'i=spam&_honey=x');
    await eventually(async () => {
      const usage = await app.api('GET', '/api/v1/billing/usage', undefined, org);
      expect(usage.body.submissions).toEqual({ used: 3, max: 50_000, held: 0 });
    });
  });

  it('loses nothing acknowledged across a restart', async () => {
    const form = await app.createForm({ name: 'Durable' });
    const ids = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await post(form.key, `i=${i}`, { accept: 'application/json' });
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    await app.restart();
    const stored = await eventually(async () => {
      const l = await app.listSubmissions(form.id, '?limit=100');
      expect(l.data).toHaveLength(50);
      return l;
    });
    expect(new Set(stored.data.map((s) => s.id))).toEqual(new Set(ids));
    expect((await post(form.key, 'after=restart')).status).toBe(303);
  });

  it('scopes forms and submissions to the organization: another org gets 404', async () => {
    const form = await app.createForm({ name: 'Private' }, 'org-a');
    expect((await app.api('GET', `/api/v1/forms/${form.id}`, undefined, 'org-b')).status).toBe(404);
    expect((await app.api('GET', `/api/v1/forms/${form.id}/submissions`, undefined, 'org-b')).status).toBe(404);
    expect((await app.api('GET', '/api/v1/forms', undefined, 'org-b')).body.data).toEqual([]);
    const anonymous = await fetch(`${app.baseUrl}/api/v1/forms`);
    expect(anonymous.status).toBe(401);
  });
});
