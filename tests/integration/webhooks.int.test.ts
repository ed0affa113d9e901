import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { DeliveryDto, WebhookEndpointDto } from '@formgate/contracts';
import type { MailFileSummary } from '@formgate/mail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const RECIPIENTS = ['one@example.com', 'two@example.com'];

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** Standard Webhooks verification from the spec, independent of the sender's library. */
const signs = (secret: string, r: Received) => {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`)
    .digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((entry) => entry === `v1,${expected}`);
};

/** Embedded mode end to end, through the gateway: two verified recipients and one webhook on one form. */
describe('embedded mode: webhooks of a submission (WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)', () => {
  let app: TestApp;
  let receiver: Server;
  let receiverUrl: string;
  const received: Received[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ url: req.url ?? '', headers: req.headers, body, at: performance.now() });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    for (const email of RECIPIENTS) {
      await app.api('POST', '/api/v1/notification-emails', { email });
      const link = await waitForMailLink(app.dataDir, email, /^Confirm /);
      expect((await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' })).status).toBe(303);
    }
  });
  afterAll(async () => {
    await app.stop();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  const mailsTo = (address: string) => {
    const dir = join(app.dataDir, 'mail');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as MailFileSummary)
      .filter((m) => m.to === address && !m.subject.startsWith('Confirm '));
  };
  const submit = async (key: string, body: Record<string, string>) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  /** The form reaches the notifications view through the log: the first creation may be early. */
  const addWebhook = (formId: string, body: Record<string, unknown>) =>
    eventually(async () => {
      const res = await app.api('POST', `/api/v1/forms/${formId}/webhooks`, body);
      expect(res.status).toBe(201);
      return res.body as unknown as WebhookEndpointDto & { secret: string };
    });

  it('two emails and one signed webhook within a second, three log entries, and a resend makes a fourth', async () => {
    const form = await app.createForm({ name: 'Contact', settings: { notifications: { emails: RECIPIENTS } } });
    const hook = await addWebhook(form.id, { url: `${receiverUrl}/main`, events: ['submission.created'] });
    const listed = await app.api('GET', `/api/v1/forms/${form.id}/webhooks`);
    expect(JSON.stringify(listed.body)).not.toContain(hook.secret);

    const started = performance.now();
    const id = await submit(form.key, { message: '<script>alert(1)</script>', email: 'ann@example.com' });
    const path = `/api/v1/forms/${form.id}/submissions/${id}/deliveries`;
    const log = await eventually(async () => {
      const data = (await app.api('GET', path)).body.data as DeliveryDto[];
      expect(data.map((d) => `${d.channel} ${d.target} ${d.status}`).sort()).toEqual([
        'email one@example.com succeeded',
        'email two@example.com succeeded',
        `webhook ${receiverUrl}/main succeeded`,
      ]);
      return data;
    });
    const hits = received.filter((r) => r.url === '/main');
    expect(hits).toHaveLength(1);
    const [hit] = hits as [Received];
    expect(hit.at - started).toBeLessThan(1_000);
    expect(signs(hook.secret, hit)).toBe(true);
    expect(JSON.parse(hit.body)).toMatchObject({
      type: 'submission.created',
      data: {
        id,
        formId: form.id,
        fields: expect.arrayContaining([{ name: 'message', value: '<script>alert(1)</script>' }]),
      },
    });
    for (const r of RECIPIENTS) expect(mailsTo(r).filter((m) => m.links.some((l) => l.endsWith(id)))).toHaveLength(1);
    const webhook = log.find((d) => d.channel === 'webhook') as DeliveryDto;
    expect(webhook.messageId).toBe(hit.headers['webhook-id']);

    const resent = await app.api('POST', `${path}/${webhook.id}/resend`, {});
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ channel: 'webhook', resendOf: webhook.id, status: 'succeeded' });
    expect(received.filter((r) => r.url === '/main')).toHaveLength(2);
    expect((await app.api('GET', path)).body.data).toHaveLength(4);
    const [stats] = (await app.api('GET', `/api/v1/forms/${form.id}/webhooks`)).body.data as WebhookEndpointDto[];
    expect(stats?.stats).toEqual({ recent: 2, succeeded: 2, failed: 0, successRate: 1 });
  });

  it('sends spam only to a spam subscriber, a spam mark too, and a deletion to a deletion subscriber', async () => {
    const form = await app.createForm({ name: 'Guarded', settings: { honeypotField: '_gotcha' } });
    await addWebhook(form.id, { url: `${receiverUrl}/created`, events: ['submission.created'] });
    await addWebhook(form.id, { url: `${receiverUrl}/spam`, events: ['submission.spam'] });
    await addWebhook(form.id, { url: `${receiverUrl}/deleted`, events: ['submission.deleted'], kind: 'slack' });
    const at = (path: string) => received.filter((r) => r.url === path).map((r) => JSON.parse(r.body));

    const spamId = await submit(form.key, { message: 'buy now', _gotcha: 'bot' });
    const okId = await submit(form.key, { message: 'hello' });
    await eventually(() => expect(at('/created').map((b) => b.data.id)).toEqual([okId]));
    await eventually(() => expect(at('/spam').map((b) => b.data.id)).toEqual([spamId]));

    const key = await app.apiKey('default');
    const marked = await fetch(`${app.baseUrl}/api/v1/forms/${form.id}/submissions/${okId}`, {
      method: 'PATCH',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ spam: true }),
    });
    expect(marked.status).toBe(200);
    await eventually(() =>
      expect(at('/spam').map((b) => [b.type, b.data.id])).toEqual([
        ['submission.spam', spamId],
        ['submission.spam', okId],
      ]),
    );

    const deleted = await fetch(`${app.baseUrl}/api/v1/forms/${form.id}/submissions/${okId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': key },
    });
    expect(deleted.status).toBe(204);
    await eventually(() => expect(at('/deleted')).toHaveLength(1));
    expect(JSON.stringify(at('/deleted')[0])).toContain(okId);
    expect(at('/created')).toHaveLength(1);
  });
});
