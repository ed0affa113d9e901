import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFormgateClient, type FormgateClient, FormgateError } from '@formgate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';

/** What the fault proxy does to the next requests to `/f/*`, in order; then it forwards them untouched. */
type Fault = { kind: 'answer'; status: number; retryAfter: string } | { kind: 'lose-answer' };

/**
 * A TCP-level stand-in for a flaky network in front of the real app: it answers a scripted 429/503 itself, or
 * forwards a request and drops the connection instead of passing the app's answer back (the submission was
 * stored, the client never heard). Records the `Idempotency-Key` of each request it saw.
 */
async function startFaultProxy(target: string) {
  const faults: Fault[] = [];
  const seen: { key: string | undefined; at: number }[] = [];
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, at: performance.now() });
      const fault = req.url?.startsWith('/f/') ? faults.shift() : undefined;
      if (fault?.kind === 'answer') {
        res.writeHead(fault.status, { 'content-type': 'application/json', 'retry-after': fault.retryAfter });
        // What ingest answers for that status (docs/ingest.md): the API conformance check sees this answer too.
        const code = fault.status === 429 ? 'RATE_LIMITED' : 'UNAVAILABLE';
        res.end(JSON.stringify({ error: 'Busy', errors: [{ code, message: 'Busy' }] }));
        return;
      }
      const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (fault?.kind === 'lose-answer') {
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.end(Buffer.concat(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** Runs `fn` and returns the FormgateError it must throw. */
async function failure(fn: () => Promise<unknown>): Promise<FormgateError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof FormgateError) return err;
    throw err;
  }
  throw new Error('expected a FormgateError');
}

describe('@formgate/client against embedded Formgate', () => {
  let app: TestApp;
  let fg: FormgateClient;
  let form: TestForm;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  const requests: string[] = [];
  beforeAll(async () => {
    app = await startTestApp();
    const apiKey = await app.apiKey('default');
    fg = createFormgateClient({
      baseUrl: `${app.baseUrl}/`,
      apiKey,
      fetch: (input, init) => {
        requests.push(`${init?.method ?? 'GET'} ${String(input).slice(app.baseUrl.length)}`);
        return fetch(input, init);
      },
    });
    form = await app.createForm({ name: 'Client' });
    proxy = await startFaultProxy(app.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await app?.stop();
  });

  it('submit: the same idempotency key twice stores one submission; each call gets its own key by default', async () => {
    const first = await fg.submit(form.key, { email: 'a@example.com', n: 1 }, { idempotencyKey: 'order-1' });
    const again = await fg.submit(form.key, { email: 'a@example.com', n: 1 }, { idempotencyKey: 'order-1' });
    expect(again.id).toBe(first.id);
    expect(first.next).toMatch(/^http/);
    const other = await fg.submit(form.key, { email: 'a@example.com', n: 1 });
    expect(other.id).not.toBe(first.id);
    // The read model is projected from the log: an accepted submission is listed a moment later.
    await eventually(async () => {
      const ids = [];
      for await (const s of fg.submissions.list(form.id)) ids.push(s.id);
      expect(ids.sort()).toEqual([first.id, other.id].sort());
    });
    const stored = await fg.submissions.get(form.id, first.id);
    expect(stored.fields).toEqual([
      { name: 'email', value: 'a@example.com' },
      { name: 'n', value: '1' },
    ]);
  });

  it('submit: an answer lost on the network is retried with the same key and stored once', async () => {
    const viaProxy = createFormgateClient({ baseUrl: proxy.url });
    const before = proxy.seen.length;
    proxy.faults.push({ kind: 'lose-answer' });
    const { id } = await viaProxy.submit(form.key, { message: 'lost answer' });
    const attempts = proxy.seen.slice(before);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]?.key).toBe(attempts[0]?.key);
    const matching = [];
    for await (const s of fg.submissions.list(form.id, { q: 'lost answer' })) matching.push(s.id);
    expect(matching).toEqual([id]);
  });

  it('submit: 429 and 503 wait Retry-After, then succeed; a 404 is not retried', async () => {
    const viaProxy = createFormgateClient({ baseUrl: proxy.url });
    const before = proxy.seen.length;
    proxy.faults.push(
      { kind: 'answer', status: 429, retryAfter: '1' },
      { kind: 'answer', status: 503, retryAfter: '1' },
    );
    const { id } = await viaProxy.submit(form.key, { message: 'after a wait' });
    const attempts = proxy.seen.slice(before);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.key)).size).toBe(1);
    for (const i of [1, 2]) expect((attempts[i]?.at ?? 0) - (attempts[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect((await fg.submissions.get(form.id, id)).fields).toEqual([{ name: 'message', value: 'after a wait' }]);

    const beforeMissing = proxy.seen.length;
    const missing = await failure(() => viaProxy.submit('no-such-form', { a: 'b' }));
    expect([missing.status, missing.code]).toEqual([404, 'FORM_NOT_FOUND']);
    expect(proxy.seen.length - beforeMissing).toBe(1);
  });

  it("submit: the server's own 429 beyond the longest wait is thrown at once, with retryAfterSeconds", async () => {
    // A sliding window crossing into the next minute lets one more through: start well inside a minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8_000) await new Promise((r) => setTimeout(r, left + 100));
    // `createForm` waited for ingest with one request, which took the only slot of this minute.
    const limited = await app.createForm({
      name: 'Limited',
      settings: { spam: { rateLimit: { perIpPerMinute: 0, perFormPerMinute: 1, perOrgPerMinute: 0 } } },
    });
    const started = performance.now();
    const err = await failure(() => fg.submit(limited.key, { a: 'b' }, { retries: 3, maxRetryWaitSeconds: 0.5 }));
    expect(performance.now() - started).toBeLessThan(900);
    expect([err.status, err.code]).toEqual([429, 'RATE_LIMITED']);
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.issues[0]?.code).toBe('RATE_LIMITED');
  });

  it('submit: a field-level problem is in the error, by field name', async () => {
    const err = await failure(() => fg.submit(form.key, { name: 'ok', comment: 'nul\u0000here' }));
    expect([err.status, err.code]).toEqual([400, 'INVALID_CHARACTER']);
    expect(Object.keys(err.fieldErrors)).toEqual(['comment']);
  });

  it('lists every page through the iterator, one page at a time, and exports', async () => {
    const paged = await app.createForm({ name: 'Paged' });
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await fg.submit(paged.key, { row: `r${i}`, note: '=1+1' })).id);
    const page = await eventually(async () => {
      expect((await app.api('GET', `/api/v1/forms/${paged.id}`)).body).toMatchObject({ submissionCount: 5 });
      return fg.submissions.page(paged.id, { limit: 2 });
    });
    expect(page.data.map((s) => s.id)).toEqual([sent[4], sent[3]]);
    expect(page.nextCursor).toEqual(expect.any(String));

    requests.length = 0;
    const all = [];
    for await (const s of fg.submissions.list(paged.id, { limit: 2 })) all.push(s.id);
    expect(all).toEqual([...sent].reverse());
    expect(requests.filter((r) => r.includes('/submissions'))).toHaveLength(3);

    const csv = await fg.submissions.exportText(paged.id);
    expect(csv.startsWith('id,createdAt,spam,row,note\r\n')).toBe(true);
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(6);
    expect(csv).toContain("'=1+1");
    const bytes = new Uint8Array(await new Response(await fg.submissions.exportStream(paged.id)).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the stream keeps the BOM for spreadsheets
    const stream = await fg.submissions.exportStream(paged.id, { format: 'json', q: 'r2' });
    const rows = (await new Response(stream).json()) as { id: string }[];
    expect(rows.map((r) => r.id)).toEqual([sent[2]]);

    await fg.submissions.delete(paged.id, sent[0] as string);
    const gone = await failure(() => fg.submissions.get(paged.id, sent[0] as string));
    expect([gone.status, gone.code]).toEqual([404, 'FORMS_SUBMISSION_NOT_FOUND']);
    expect(gone.requestId).toEqual(expect.any(String));
  });

  it('forms and webhooks: create, read, update, delete', async () => {
    const created = await fg.forms.create({ name: 'CRUD form', slug: 'crud-form' });
    expect(created.endpoint).toBe(`/f/${created.key}`);
    expect((await fg.forms.list({ slug: 'crud-form' })).map((f) => f.id)).toEqual([created.id]);
    const renamed = await fg.forms.update(created.id, { name: 'Renamed', settings: { enabled: false } });
    expect([renamed.name, renamed.settings.enabled]).toEqual(['Renamed', false]);
    expect((await fg.forms.get(created.id)).name).toBe('Renamed');

    const hook = await fg.webhooks.create(created.id, { url: 'https://hooks.example.com/in', kind: 'slack' });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.secretHint).toBe(hook.secret.slice(-4));
    const disabled = await fg.webhooks.update(created.id, hook.id, { enabled: false, events: ['submission.spam'] });
    expect([disabled.enabled, disabled.events]).toEqual([false, ['submission.spam']]);
    const rotated = await fg.webhooks.rotateSecret(created.id, hook.id);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.previousSecretExpiresAt).toEqual(expect.any(String));
    expect((await fg.webhooks.list(created.id)).map((w) => [w.id, w.kind])).toEqual([[hook.id, 'slack']]);
    const forbidden = await failure(() => fg.webhooks.create(created.id, { url: 'http://localhost:9/x' }));
    expect([forbidden.status, forbidden.code]).toEqual([422, 'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN']);
    await fg.webhooks.delete(created.id, hook.id);
    expect(await fg.webhooks.list(created.id)).toEqual([]);

    await fg.forms.delete(created.id);
    const gone = await failure(() => fg.forms.get(created.id));
    expect([gone.status, gone.code]).toEqual([404, 'FORMS_FORM_NOT_FOUND']);
  });

  it('errors: 400 with details, 403 for a read key, API keys for sessions only', async () => {
    const invalid = await failure(() => fg.forms.create({ name: '' }));
    expect([invalid.status, invalid.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(invalid.details)).toContain('name');

    const owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner, 'Readers');
    const reader = createFormgateClient({
      baseUrl: app.baseUrl,
      apiKey: await app.accounts.createApiKey(owner, 'read'),
    });
    expect(await reader.forms.list()).toEqual([]);
    const denied = await failure(() => reader.forms.create({ name: 'Nope' }));
    expect([denied.status, denied.code]).toEqual([403, 'FORBIDDEN']);
    expect(denied.message).toBe('This API key is read-only');
    const keysByKey = await failure(() => fg.apiKeys.list());
    expect([keysByKey.status, keysByKey.code]).toEqual([403, 'FORBIDDEN']);

    // A browser session (the dashboard's origin, its cookie) may manage keys.
    const asSession = createFormgateClient({
      baseUrl: app.baseUrl,
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: {
            ...(init?.headers as Record<string, string>),
            origin: app.baseUrl,
            cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          },
        }),
    });
    const key = await asSession.apiKeys.create({ name: 'ci', scope: 'write' });
    expect(key.key).toMatch(/^fg_/);
    expect((await asSession.apiKeys.list()).map((k) => k.id)).toContain(key.id);
    await asSession.apiKeys.delete(key.id);
    expect((await asSession.apiKeys.list()).map((k) => k.id)).not.toContain(key.id);
  });
});
