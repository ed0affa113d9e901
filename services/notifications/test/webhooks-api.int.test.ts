import { randomUUID } from 'node:crypto';
import type { WebhookEndpointDto } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

describe('webhook endpoints API (embedded stores, real HTTP)', () => {
  let open: WebhookService;
  let closed: WebhookService;
  beforeAll(async () => {
    open = await startWebhookService({ allowPrivateTargets: true });
    closed = await startWebhookService({ allowPrivateTargets: false });
  });
  afterAll(async () => {
    await open.stop();
    await closed.stop();
  });

  it('creates an endpoint showing its secret once; lists it with only a hint of the secret', async () => {
    const form = await open.publishForm();
    const created = await open.api('POST', `/api/v1/forms/${form.id}/webhooks`, form, {
      url: '  https://hooks.example/in?a=1&b=<x>  ',
      kind: 'discord',
      events: ['submission.created', 'submission.spam', 'submission.created'],
    });
    expect(created.status).toBe(201);
    const secret = String(created.body.secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({
      formId: form.id,
      url: 'https://hooks.example/in?a=1&b=<x>',
      kind: 'discord',
      events: ['submission.created', 'submission.spam'],
      enabled: true,
      disabledReason: null,
      secretHint: secret.slice(-4),
      previousSecretExpiresAt: null,
      stats: { recent: 0, succeeded: 0, failed: 0, successRate: null },
    });
    const list = await open.api('GET', `/api/v1/forms/${form.id}/webhooks`, { orgId: form.orgId, roles: ['member'] });
    expect(list.status).toBe(200);
    const data = list.body.data as WebhookEndpointDto[];
    expect(data).toHaveLength(1);
    expect(data[0]).not.toHaveProperty('secret');
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(data[0]?.id).toBe(created.body.id);
  });

  it('defaults to a standard endpoint for submission.created, and refuses what is not valid with its own code', async () => {
    const form = await open.publishForm();
    const path = `/api/v1/forms/${form.id}/webhooks`;
    const plain = await open.api('POST', path, form, { url: 'http://receiver.example/hook' });
    expect(plain.body).toMatchObject({ kind: 'standard', events: ['submission.created'] });
    const code = async (body: unknown) =>
      ((await open.api('POST', path, form, body)).body.error as { code: string }).code;
    // What the document's pattern and length refuse is a 400 naming `url`, like any field.
    const urlRefused = async (url: string) => (await open.api('POST', path, form, { url })).body.error;
    for (const url of ['ftp://x.example/', 'javascript:alert(1)', 'not a url', `https://x.example/${'a'.repeat(2000)}`])
      expect(await urlRefused(url), url).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'url' }] });
    expect(await code({ url: 'https://x.example/', events: [] })).toBe('VALIDATION_FAILED');
    expect(await code({ url: 'https://x.example/', events: ['submission.updated'] })).toBe('VALIDATION_FAILED');
    expect(await code({ url: 'https://x.example/', kind: 'teams' })).toBe('VALIDATION_FAILED');
    expect(await code({ url: 'https://x.example/', secret: 'whsec_mine' })).toBe('VALIDATION_FAILED');
    const invalid = await open.api('POST', path, form, { url: 'ftp://x.example/' });
    expect(invalid.status).toBe(400);
  });

  it('refuses localhost and literal private addresses unless the operator allows private targets', async () => {
    const form = await closed.publishForm();
    const path = `/api/v1/forms/${form.id}/webhooks`;
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/',
      'http://api.localhost/',
      'http://[::1]/',
      'http://10.0.0.5/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await closed.api('POST', path, form, { url });
      expect([url, res.status, (res.body.error as { code: string }).code]).toEqual([
        url,
        422,
        'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN',
      ]);
    }
    // Other spellings of an IPv4 address are not URLs the API takes at all.
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/']) {
      const res = await closed.api('POST', path, form, { url });
      expect([url, res.status, (res.body.error as { code: string }).code]).toEqual([url, 400, 'VALIDATION_FAILED']);
    }
    expect((await closed.api('POST', path, form, { url: 'https://8.8.8.8/hook' })).status).toBe(201);
    const openForm = await open.publishForm();
    expect(
      (await open.api('POST', `/api/v1/forms/${openForm.id}/webhooks`, openForm, { url: 'http://127.0.0.1:1/' }))
        .status,
    ).toBe(201);
  });

  it('lets members read but only owners and admins manage; another organization’s form is not found', async () => {
    const form = await open.publishForm();
    const hook = await open.addWebhook(form, { url: 'https://hooks.example/a' });
    const member = { orgId: form.orgId, roles: ['member'] };
    const base = `/api/v1/forms/${form.id}/webhooks`;
    expect((await open.api('GET', base, member)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', base, { url: 'https://hooks.example/b' }],
      ['PATCH', `${base}/${hook.id}`, { enabled: false }],
      ['DELETE', `${base}/${hook.id}`, undefined],
      ['POST', `${base}/${hook.id}/rotate-secret`, undefined],
    ] as const) {
      const res = await open.api(method, path, member, body);
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    expect(
      (await open.api('PATCH', `${base}/${hook.id}`, { orgId: form.orgId, roles: ['admin'] }, { enabled: false }))
        .status,
    ).toBe(200);
    const stranger = { orgId: `org_${randomUUID()}` };
    for (const [method, path] of [
      ['GET', base],
      ['POST', base],
      ['PATCH', `${base}/${hook.id}`],
      ['DELETE', `${base}/${hook.id}`],
      ['POST', `${base}/${hook.id}/rotate-secret`],
    ] as const) {
      const res = await open.api(
        method,
        path,
        stranger,
        method === 'DELETE' || method === 'GET' ? undefined : { url: 'https://x.example/' },
      );
      expect([method, path, res.status, (res.body.error as { code: string }).code]).toEqual([
        method,
        path,
        404,
        'FORMS_FORM_NOT_FOUND',
      ]);
    }
    // An endpoint of another form of the same organization is not reachable through this form.
    const other = await open.publishForm(form.orgId);
    const res = await open.api('PATCH', `/api/v1/forms/${other.id}/webhooks/${hook.id}`, form, { enabled: true });
    expect([res.status, (res.body.error as { code: string }).code]).toEqual([404, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND']);
  });

  it('changes, disables, re-enables and deletes an endpoint', async () => {
    const form = await open.publishForm();
    const hook = await open.addWebhook(form, { url: 'https://hooks.example/a' });
    const path = `/api/v1/forms/${form.id}/webhooks/${hook.id}`;
    const changed = await open.api('PATCH', path, form, {
      url: 'https://hooks.example/b',
      kind: 'slack',
      events: ['submission.deleted'],
      enabled: false,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      url: 'https://hooks.example/b',
      kind: 'slack',
      events: ['submission.deleted'],
      enabled: false,
      disabledReason: null,
    });
    expect(changed.body).not.toHaveProperty('secret');
    const bad = await open.api('PATCH', path, form, { url: 'gopher://x' });
    expect((bad.body.error as { code: string }).code).toBe('VALIDATION_FAILED');
    expect((await open.api('PATCH', path, form, { enabled: true })).body).toMatchObject({ enabled: true });
    expect((await open.api('DELETE', path, form)).status).toBe(204);
    const gone = await open.api('DELETE', path, form);
    expect([gone.status, (gone.body.error as { code: string }).code]).toEqual([404, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND']);
    expect((await open.api('GET', `/api/v1/forms/${form.id}/webhooks`, form)).body.data).toEqual([]);
  });

  it('rotates the secret: a new one shown once, the previous one valid for 24 hours', async () => {
    const form = await open.publishForm();
    const hook = await open.addWebhook(form, { url: 'https://hooks.example/a' });
    const rotated = await open.api('POST', `/api/v1/forms/${form.id}/webhooks/${hook.id}/rotate-secret`, form);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect(rotated.body.previousSecretExpiresAt).toBe(new Date(open.clock.now + 86_400_000).toISOString());
    const stored = await open.endpoints.get({ orgId: form.orgId }, hook.id);
    expect(stored?.previousSecret?.secret).toBe(hook.secret);

    // Rotations at once: each is stored (one revision each, the last one's secret kept) or a retryable 409.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        open.api('POST', `/api/v1/forms/${form.id}/webhooks/${hook.id}/rotate-secret`, form),
      ),
    );
    const stored4 = answers.filter((a) => a.status === 200).map((a) => String(a.body.secret));
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect([a.status, (a.body.error as { code: string }).code]).toEqual([
        409,
        'NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE',
      ]);
    }
    const after = await open.endpoints.get({ orgId: form.orgId }, hook.id);
    expect(after?.revision).toBe(1 + stored4.length);
    expect(stored4).toContain(after?.secret);
  });

  it('allows at most 10 endpoints per form', async () => {
    const form = await open.publishForm();
    for (let i = 0; i < 10; i++) await open.addWebhook(form, { url: `https://hooks.example/${i}` });
    const res = await open.api('POST', `/api/v1/forms/${form.id}/webhooks`, form, { url: 'https://hooks.example/11' });
    expect([res.status, (res.body.error as { code: string }).code]).toEqual([
      409,
      'NOTIFICATIONS_WEBHOOK_LIMIT_REACHED',
    ]);
  });
});
