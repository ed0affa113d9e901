import type { OpenApiDocument } from '@formgate/contracts/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSamples } from '../harness/api-conformance.ts';
import { type ApiSample, flushApiRecorder, recordedApiSamples } from '../harness/api-recorder.ts';
import type { BrowserSession } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test reads whatever JSON an endpoint answers, and asserts on it.
type Json = Record<string, any>;

/**
 * Every answer this file sees — a representative slice of the API, successes and errors — is recorded (the int
 * tier's `api-recording.setup.ts`, like every int file) and must validate against the `/api/v1/openapi.json` the
 * running instance serves. The `api-conformance` project checks every other file's answers the same way.
 */
describe('the API answers as its OpenAPI description says', () => {
  let app: TestApp;
  let owner: BrowserSession & { email: string };
  let writeKey: string;
  let readKey: string;

  beforeAll(async () => {
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', USER_LOOKUPS_PER_MINUTE: '3' });
    owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner);
    writeKey = await app.accounts.createApiKey(owner, 'write');
    readKey = await app.accounts.createApiKey(owner, 'read');
  });
  afterAll(async () => {
    await app?.stop();
  });

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        'x-api-key': writeKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: res.headers.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : text,
    };
  };

  it('records a slice of traffic and every answer validates', async () => {
    const expectStatus = async (p: Promise<{ status: number; body: unknown }>, status: number) => {
      const r = await p;
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(status);
      return r.body as Json;
    };
    // Accounts, site, description.
    await expectStatus(owner.call('GET', '/api/v1/session'), 200);
    await expectStatus(owner.call('GET', '/api/v1/api-keys'), 200);
    await expectStatus(call('GET', '/api/v1/site'), 200);
    await expectStatus(call('GET', '/api/v1/plans'), 200);
    const served = (await expectStatus(call('GET', '/api/v1/openapi.json'), 200)) as unknown as OpenApiDocument;
    await expectStatus(call('GET', `/api/v1/users/by-email/${encodeURIComponent(owner.email)}`), 200);
    await expectStatus(call('GET', '/api/v1/users/by-email/not-an-email'), 400);
    await expectStatus(call('GET', '/api/v1/users/by-email/nobody%40example.test'), 200);
    await expectStatus(call('GET', '/api/v1/users/by-email/nobody%40example.test'), 429);

    // Forms.
    const form = await expectStatus(call('POST', '/api/v1/forms', { name: 'Contact', slug: 'contact' }), 201);
    await expectStatus(call('POST', '/api/v1/forms', { name: 'Again', slug: 'contact' }), 409);
    await expectStatus(call('POST', '/api/v1/forms', { name: '' }), 400);
    await expectStatus(call('POST', '/api/v1/forms', '{"name":', {}), 400);
    await expectStatus(call('POST', '/api/v1/forms', 'name=x', { 'content-type': 'text/plain' }), 415);
    await expectStatus(call('GET', '/api/v1/forms'), 200);
    await expectStatus(call('GET', '/api/v1/forms?slug=contact'), 200);
    await expectStatus(call('GET', `/api/v1/forms/${form.id}`), 200);
    await expectStatus(call('GET', '/api/v1/forms/no-such-form'), 404);
    await expectStatus(call('PUT', `/api/v1/forms/${form.id}`, {}), 405);
    await expectStatus(call('GET', '/api/v1/forms'), 200);
    await expectStatus(call('GET', '/api/v1/forms', undefined, { 'x-api-key': 'fg_not_a_key' }), 401);
    await expectStatus(call('POST', '/api/v1/forms', { name: 'Nope' }, { 'x-api-key': readKey }), 403);
    const settings = {
      name: 'Contact us',
      settings: { allowedOrigins: ['https://shop.example'], spam: { captcha: null, timeTrapSeconds: 0 } },
    };
    await expectStatus(call('PATCH', `/api/v1/forms/${form.id}`, settings), 200);
    await expectStatus(call('GET', `/api/v1/forms/${form.id}/stats?days=7`), 200);
    await expectStatus(call('GET', `/api/v1/forms/${form.id}/stats?days=0`), 400);

    // The public endpoint.
    await app.waitForForm(form.key);
    const json = { accept: 'application/json' };
    await expectStatus(call('GET', `/f/${form.key}/timestamp`), 200);
    await expectStatus(call('GET', `/f/${form.key}/altcha`), 200);
    await expectStatus(call('POST', `/f/${form.key}`, { email: 'a@example.com', message: '<b>hi</b>' }, json), 200);
    const html = await call('POST', `/f/${form.key}`, 'email=b%40example.com&message=hello', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(html.status).toBe(303);
    const upload = new FormData();
    upload.set('email', 'c@example.com');
    upload.set('file', new Blob(['hello file'], { type: 'text/plain' }), 'note.txt');
    const posted = await fetch(`${app.baseUrl}/f/${form.key}`, { method: 'POST', body: upload, headers: json });
    expect(posted.status).toBe(200);
    await expectStatus(call('POST', `/f/${form.key}`, 'x', { ...json, 'content-type': 'text/plain' }), 415);
    await expectStatus(call('POST', `/f/${form.key}`, {}, json), 422);
    await expectStatus(call('POST', '/f/no-such-key', { a: 'b' }, json), 404);
    await expectStatus(call('POST', '/f/no-such-key', { a: 'b' }), 404);

    // Submissions.
    const page = await eventually(async () => {
      const list = await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions?limit=2`), 200);
      // Three were accepted: a second page follows once all three reached the view.
      expect(list.nextCursor).toEqual(expect.any(String));
      return list as unknown as { data: { id: string }[]; nextCursor: string };
    });
    await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions?cursor=${page.nextCursor}`), 200);
    await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions?cursor=nonsense`), 400);
    await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions?q=hello&spam=false`), 200);
    const withFile = await eventually(async () => {
      const list = await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions?limit=100`), 200);
      const found = (list.data as { id: string; files: { blobKey: string }[] }[]).find((s) => s.files.length);
      expect(found).toBeDefined();
      return found as { id: string; files: { blobKey: string }[] };
    });
    const sub = `/api/v1/forms/${form.id}/submissions/${withFile.id}`;
    await expectStatus(call('GET', sub), 200);
    const link = await expectStatus(call('GET', `${sub}/files/${withFile.files[0]?.blobKey}/link`), 200);
    await expectStatus(call('GET', link.url as string), 200);
    await expectStatus(call('GET', '/api/v1/files/forged'), 403);
    await expectStatus(call('PATCH', sub, { spam: true }), 200);
    await expectStatus(call('GET', `${sub}/deliveries`), 200);
    const range = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() };
    await expectStatus(call('POST', `/api/v1/forms/${form.id}/deliveries/replay`, range), 202);
    for (const format of ['csv', 'json', 'ndjson']) {
      await expectStatus(call('GET', `/api/v1/forms/${form.id}/submissions/export?format=${format}`), 200);
    }
    const bulk = { action: 'not-spam', ids: [withFile.id, 'missing'] };
    await expectStatus(call('POST', `/api/v1/forms/${form.id}/submissions/bulk`, bulk), 200);
    await expectStatus(call('DELETE', sub), 204);
    await expectStatus(call('GET', sub), 404);

    // Webhooks.
    const hooks = `/api/v1/forms/${form.id}/webhooks`;
    const hook = await eventually(() => expectStatus(call('POST', hooks, { url: 'http://127.0.0.1:9/hook' }), 201));
    await expectStatus(call('POST', hooks, { url: 'not a url' }), 400);
    await expectStatus(call('GET', hooks), 200);
    await expectStatus(call('PATCH', `${hooks}/${hook.id}`, { enabled: false }), 200);
    await expectStatus(call('POST', `${hooks}/${hook.id}/rotate-secret`, {}), 200);
    await expectStatus(call('DELETE', `${hooks}/${hook.id}`), 204);
    await expectStatus(call('DELETE', `${hooks}/${hook.id}`), 404);

    // Notification emails, organization, billing.
    const added = await expectStatus(call('POST', '/api/v1/notification-emails', { email: 'ops@example.com' }), 201);
    await expectStatus(call('POST', '/api/v1/notification-emails', { email: 'ops@example.com' }), 429);
    await expectStatus(call('GET', '/api/v1/notification-emails'), 200);
    await expectStatus(call('GET', '/api/v1/notification-emails/verify?token=forged'), 303);
    await expectStatus(call('DELETE', `/api/v1/notification-emails/${added.id}`), 204);
    await expectStatus(call('GET', '/api/v1/orgs/settings'), 200);
    await expectStatus(call('PATCH', '/api/v1/orgs/settings', { email_management: true }), 200);
    await expectStatus(call('PATCH', '/api/v1/orgs/settings', { nope: 1 }), 400);
    await expectStatus(call('GET', '/api/v1/orgs/audit-log?limit=5'), 200);
    await expectStatus(call('GET', '/api/v1/flags/emailManagement'), 200);
    await expectStatus(call('GET', '/api/v1/flags/nope'), 404);
    await expectStatus(call('GET', '/api/v1/billing/usage'), 200);
    await expectStatus(call('GET', '/api/v1/billing/email-quota'), 200);
    await expectStatus(owner.call('DELETE', '/api/v1/api-keys/no-such-key'), 404);
    await expectStatus(call('DELETE', `/api/v1/forms/${form.id}`), 204);
    await expectStatus(call('POST', `/f/${form.key}`, { a: 'b' }, json), 410);

    await flushApiRecorder();
    const samples = recordedApiSamples();
    const statuses = new Set(samples.map((s) => s.status));
    for (const status of [200, 201, 202, 204, 303, 400, 401, 403, 404, 405, 409, 410, 415, 422, 429]) {
      expect(statuses, `a ${status} was recorded`).toContain(status);
    }
    expect(new Set(samples.map((s) => `${s.method} ${s.route}`)).size).toBeGreaterThanOrEqual(40);
    expect(checkSamples(served, samples)).toEqual([]);

    // The check can fail: an undocumented status, and a body with a field the schema does not have.
    const site = samples.find((s) => s.route === '/api/v1/site') as ApiSample;
    const doctored = [
      { ...site, status: 418 },
      { ...site, body: { ...(site.body as object), extra: true } },
    ];
    expect(checkSamples(served, doctored)).toHaveLength(2);
  });

  it('serves the description and a self-hosted reference page under a strict policy', async () => {
    const spec = await fetch(`${app.baseUrl}/api/v1/openapi.json`);
    expect(spec.headers.get('cache-control')).toBe('public, max-age=300');
    expect(((await spec.json()) as OpenApiDocument).servers).toEqual([{ url: '/' }]);
    const page = await fetch(`${app.baseUrl}/docs/api`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/<script>|https?:\/\//);
    for (const src of html.match(/src="[^"]+"/g) ?? []) {
      const script = await fetch(`${app.baseUrl}${src.slice(5, -1)}`);
      expect(script.status, src).toBe(200);
      expect(script.headers.get('content-type')).toContain('javascript');
      expect((await script.text()).length).toBeGreaterThan(100);
    }
    expect((await fetch(`${app.baseUrl}/docs/api`, { method: 'POST' })).status).toBe(405);
  });
});
