import type { RestHookBody, RestHookDto, WebhookEndpointDto } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifiesWith } from '../../services/notifications/test/standard-webhooks-verifier.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { type RecordedWebhook, startWebhookRecorder } from '../harness/webhook-recorder.ts';

/** REST hooks as Zapier, Make and n8n use them, end to end through the gateway with API keys. */
describe('embedded mode: REST hooks (subscribe, sample, unsubscribe, 410)', () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookRecorder>>;
  const keys = { write: '', read: '', other: '' };

  beforeAll(async () => {
    receiver = await startWebhookRecorder({ statusFor: (url) => (url.startsWith('/gone') ? 410 : 200) });
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    const owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner, 'Zaps');
    keys.write = await app.accounts.createApiKey(owner, 'write');
    keys.read = await app.accounts.createApiKey(owner, 'read');
    keys.other = await app.apiKey('other');
  });
  afterAll(async () => {
    await app.stop();
    await receiver.close();
  });

  const call = async (key: keyof typeof keys, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { 'x-api-key': keys[key] };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {} };
  };
  const createForm = async (name: string) => {
    const res = await call('write', 'POST', '/api/v1/forms', { name });
    expect(res.status).toBe(201);
    await app.waitForForm(res.body.key);
    return res.body as { id: string; key: string; name: string };
  };
  /** The form reaches the notifications view through the log: the first subscription may be early. */
  const subscribe = (formId: string, path: string, event = 'submission.created') =>
    eventually(async () => {
      const res = await call('write', 'POST', '/api/v1/hooks', { targetUrl: `${receiver.url}${path}`, event, formId });
      expect(res.status).toBe(201);
      return res.body as RestHookDto;
    });
  const submit = async (key: string, body: FormData | URLSearchParams) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const hitsAt = (path: string) => receiver.received.filter((r) => r.url === path);
  const hooksOf = async (formId: string) =>
    (await call('read', 'GET', `/api/v1/forms/${formId}/webhooks`)).body.data as WebhookEndpointDto[];
  const sample = (formId: string, event: string) =>
    call('read', 'GET', `/api/v1/hooks/sample?${new URLSearchParams({ formId, event })}`);

  it('subscribes with a write key (not a read key); a submission arrives flat and signed, and the sample matches it', async () => {
    const form = await createForm('Contact');
    const refused = await call('read', 'POST', '/api/v1/hooks', {
      targetUrl: `${receiver.url}/zap`,
      event: 'submission.created',
      formId: form.id,
    });
    expect(refused.status).toBe(403);
    const hook = await subscribe(form.id, '/zap');
    expect(hook).toEqual({
      id: expect.any(String),
      targetUrl: `${receiver.url}/zap`,
      event: 'submission.created',
      formId: form.id,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(await hooksOf(form.id)).toMatchObject([{ id: hook.id, kind: 'rest-hook', events: ['submission.created'] }]);

    const upload = new FormData();
    upload.append('name', 'Ann');
    upload.append('topic', 'sales');
    upload.append('topic', 'support');
    upload.append('cv', new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'cv.pdf');
    const id = await submit(form.key, upload);
    const hit = await eventually(() => {
      expect(hitsAt('/zap')).toHaveLength(1);
      return hitsAt('/zap')[0] as RecordedWebhook;
    });
    expect(verifiesWith(hook.secret, hit.headers, hit.body)).toBe(true);
    expect(hit.headers['webhook-id']).toEqual(expect.any(String));
    const body = JSON.parse(hit.body) as RestHookBody;
    expect(body).toEqual({
      id,
      event: 'submission.created',
      createdAt: expect.any(String),
      form: { id: form.id, name: 'Contact' },
      fields: { name: 'Ann', topic: ['sales', 'support'] },
      files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 8 }],
    });

    // The forms service stores the submission on its own: the sample may answer the example for a moment.
    await eventually(async () => {
      const sampled = await sample(form.id, 'submission.created');
      expect([sampled.status, sampled.body]).toEqual([200, { data: [body], example: false }]);
    });
  });

  it('samples the 3 most recent submissions of the event, or one marked example', async () => {
    const form = await createForm('Survey');
    const empty = await sample(form.id, 'submission.created');
    expect(empty.body).toEqual({
      data: [
        {
          id: 'example',
          event: 'submission.created',
          createdAt: expect.any(String),
          form: { id: form.id, name: 'Survey' },
          fields: { email: 'Example email', message: 'Example message' },
          files: [],
        },
      ],
      example: true,
    });
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) ids.push(await submit(form.key, new URLSearchParams({ answer: `a${n}` })));
    const recent = await eventually(async () => {
      const res = await sample(form.id, 'submission.created');
      expect(res.body.example).toBe(false);
      expect(res.body.data).toHaveLength(3);
      return res.body.data as RestHookBody[];
    });
    expect(recent.map((b) => [b.id, b.fields])).toEqual([
      [ids[3], { answer: 'a4' }],
      [ids[2], { answer: 'a3' }],
      [ids[1], { answer: 'a2' }],
    ]);
    // No spam yet: an example made of the field names the form has received.
    const spam = await sample(form.id, 'submission.spam');
    expect(spam.body).toMatchObject({
      data: [{ id: 'example', event: 'submission.spam', fields: { answer: 'Example answer' } }],
      example: true,
    });
    const deleted = await sample(form.id, 'submission.deleted');
    expect(deleted.body.data[0]).toMatchObject({ id: ids[3], event: 'submission.deleted', fields: {}, files: [] });
  });

  it('stops delivering once unsubscribed; a second unsubscribe is 404', async () => {
    const form = await createForm('Leads');
    const hook = await subscribe(form.id, '/leads');
    await submit(form.key, new URLSearchParams({ n: '1' }));
    await eventually(() => expect(hitsAt('/leads')).toHaveLength(1));

    expect((await call('read', 'DELETE', `/api/v1/hooks/${hook.id}`)).status).toBe(403);
    expect((await call('write', 'DELETE', `/api/v1/hooks/${hook.id}`)).status).toBe(204);
    const again = await call('write', 'DELETE', `/api/v1/hooks/${hook.id}`);
    expect([again.status, again.body.error.code]).toEqual([404, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND']);
    expect(await hooksOf(form.id)).toEqual([]);

    // The next submission is planned for the hooks subscribed then: the new one, not the removed one.
    await subscribe(form.id, '/leads-after');
    const next = await submit(form.key, new URLSearchParams({ n: '2' }));
    await eventually(() => expect(hitsAt('/leads-after')).toHaveLength(1));
    const log = await call('write', 'GET', `/api/v1/forms/${form.id}/submissions/${next}/deliveries`);
    expect(log.body.data.map((d: { target: string }) => d.target)).toEqual([`${receiver.url}/leads-after`]);
    expect(hitsAt('/leads')).toHaveLength(1);
  });

  it('removes a hook whose target answers 410 Gone', async () => {
    const form = await createForm('Orders');
    const hook = await subscribe(form.id, '/gone');
    await submit(form.key, new URLSearchParams({ order: '1' }));
    await eventually(async () => expect(await hooksOf(form.id)).toEqual([]));
    expect(hitsAt('/gone')).toHaveLength(1);
    expect((await call('write', 'DELETE', `/api/v1/hooks/${hook.id}`)).status).toBe(404);
  });

  it('hears no erasure: only the event it subscribed to', async () => {
    const form = await createForm('Erasable');
    await subscribe(form.id, '/erasable-zap');
    const standard = await call('write', 'POST', `/api/v1/forms/${form.id}/webhooks`, {
      url: `${receiver.url}/erasable-std`,
    });
    expect(standard.status).toBe(201);
    const id = await submit(form.key, new URLSearchParams({ email: 'erase.me@example.com' }));
    await eventually(() => expect(hitsAt('/erasable-zap').length + hitsAt('/erasable-std').length).toBe(2));
    expect((await call('write', 'POST', '/api/v1/erasures', { email: 'erase.me@example.com' })).status).toBe(201);
    await eventually(() =>
      expect(hitsAt('/erasable-std').map((r) => JSON.parse(r.body).type)).toContain('submission.erased'),
    );
    const log = await call('write', 'GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`);
    const targets = log.body.data.map((d: { target: string }) => d.target.replace(receiver.url, '')).sort();
    expect(targets).toEqual(['/erasable-std', '/erasable-std', '/erasable-zap']);
    expect(hitsAt('/erasable-zap')).toHaveLength(1);
  });

  it('is invisible to another organization, and only a hook is unsubscribed through /hooks', async () => {
    const form = await createForm('Private');
    const hook = await subscribe(form.id, '/private');
    const target = { targetUrl: `${receiver.url}/stolen`, event: 'submission.created', formId: form.id };
    const cases = [
      await call('other', 'POST', '/api/v1/hooks', target),
      await call('other', 'DELETE', `/api/v1/hooks/${hook.id}`),
      await call('other', 'GET', `/api/v1/hooks/sample?formId=${form.id}`),
    ];
    expect(cases.map((r) => [r.status, r.body.error.code])).toEqual([
      [404, 'FORMS_FORM_NOT_FOUND'],
      [404, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND'],
      [404, 'FORMS_FORM_NOT_FOUND'],
    ]);
    const standard = await call('write', 'POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}/std` });
    expect(standard.status).toBe(201);
    expect((await call('write', 'DELETE', `/api/v1/hooks/${standard.body.id}`)).status).toBe(404);
    expect((await hooksOf(form.id)).map((e) => e.id)).toEqual([hook.id, standard.body.id]);
  });
});
