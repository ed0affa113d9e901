import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { EventBus } from '@formgate/bus';
import { createKafkaBus } from '@formgate/bus/kafka';
import { encodeEvent, Topics } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type WebhookReceiver } from '../../services/notifications/test/webhook-receiver.ts';
import { eventually } from '../harness/embedded-app.ts';
import { startDistributed, stopProcess } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

const RECIPIENT = 'spam-review-e2e@example.com';
const settle = (ms = 2_000) => new Promise((r) => setTimeout(r, ms));

/**
 * Spam review (issue 14) on the distributed processes (Kafka, FerretDB, two forms instances, SMTP, a real webhook
 * receiver): "not spam" releases a spam submission once — one mail, one `submission.created`, one usage count —
 * through toggles and restarts of notifications and billing; blocked counts from reports on `ingest.abuse`; spam
 * settings of a form and of the organization, the captcha secret never returned, and the organization's published
 * on `orgs.settings`.
 */
describe('spam review in distributed mode', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  let receiver: WebhookReceiver;
  let bus: EventBus;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey('default'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes
    return { status: res.status, body: (await res.json()) as any };
  };
  const post = async (key: string, body: string) => {
    const res = await fetch(`${cluster.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const newForm = async (settings: Record<string, unknown> = {}) => {
    const created = await api('POST', '/api/v1/forms', { name: `Review ${randomUUID().slice(0, 6)}`, settings });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    await eventually(async () => {
      for (const name of ['ingest-1', 'ingest-2']) {
        const r = await fetch(`${cluster.processes[name]?.url}/f/${form.key}`, {
          method: 'POST',
          headers: { accept: 'application/json' },
        });
        expect(r.status).not.toBe(404);
      }
    }, 30_000);
    return form;
  };
  const mailsOf = (id: string) =>
    cluster.smtp.messages.filter(
      (m) => m.to.includes(RECIPIENT) && !/^Confirm /.test(m.subject) && m.text.includes(id),
    );
  const used = async () => (await api('GET', '/api/v1/billing/usage')).body.submissions.used as number;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.handler = (_request, response) => response.writeHead(204).end();
    cluster = await startDistributed({
      kafkaBrokers: KAFKA_BROKERS,
      mongoUrl: MONGO_URL,
      notificationsEnv: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    bus = createKafkaBus({
      brokers: KAFKA_BROKERS.split(','),
      clientId: `spam-review-e2e-${randomUUID()}`,
      topicPrefix: cluster.kafkaTopicPrefix,
    });
    expect((await api('POST', '/api/v1/notification-emails', { email: RECIPIENT })).status).toBe(201);
    const link = await cluster.mailLink(RECIPIENT, /^Confirm /);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  }, 240_000);
  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
    await receiver?.close();
  });

  it('"not spam" notifies (mail, submission.created) and bills a spam submission once, through toggles and restarts', async () => {
    const form = await newForm({ notifications: { emails: [RECIPIENT], subject: 'Lead: {{subject}}' } });
    const [created, spamHook] = [`/created-${randomUUID()}`, `/spam-${randomUUID()}`];
    for (const [path, events] of [
      [created, ['submission.created']],
      [spamHook, ['submission.spam']],
    ] as const) {
      await eventually(async () => {
        const hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, {
          url: `${receiver.url}${path}`,
          kind: 'standard',
          events,
        });
        expect(hook.status).toBe(201);
      }, 30_000);
    }
    const at = (path: string) => receiver.requests.filter((r) => r.url === path);
    const before = await used();
    const spam = await post(form.key, 'email=bob%40example.com&_gotcha=bot&_subject=Quote');
    await eventually(() => expect(at(spamHook)).toHaveLength(1), 30_000);
    await settle();
    expect(mailsOf(spam)).toEqual([]);
    expect(at(created)).toHaveLength(0);
    expect(await used()).toBe(before);

    const marked = await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: false });
    expect(marked.status).toBe(200);
    await eventually(() => expect(mailsOf(spam)).toHaveLength(1), 30_000);
    expect(mailsOf(spam)[0]?.subject).toBe('Lead: Quote');
    await eventually(() => expect(at(created)).toHaveLength(1), 30_000);
    expect(JSON.parse(at(created)[0]?.body as string)).toMatchObject({
      type: 'submission.created',
      data: { id: spam, spam: false },
    });
    await eventually(async () => expect(await used()).toBe(before + 1), 30_000);

    await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: true });
    await api('POST', `/api/v1/forms/${form.id}/submissions/bulk`, { action: 'not-spam', ids: [spam] });
    // Notifications killed (its consumers redeliver what they had not committed), billing stopped; both restarted.
    const notifications = cluster.processes.notifications?.child;
    const exited = notifications ? once(notifications, 'exit') : Promise.resolve();
    notifications?.kill('SIGKILL');
    await exited;
    await stopProcess(cluster.processes.billing as Parameters<typeof stopProcess>[0]);
    await cluster.restart('notifications');
    await cluster.restart('billing');
    await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: true });
    await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: false });
    await settle(5_000);
    expect(mailsOf(spam)).toHaveLength(1);
    expect(at(created)).toHaveLength(1);
    expect(at(spamHook).length).toBeGreaterThanOrEqual(1);
    expect(await used()).toBe(before + 1);
  });

  it('counts blocked requests reported on ingest.abuse per form and day, a redelivered report once', async () => {
    const form = await newForm();
    const detail = async () => (await api('GET', `/api/v1/forms/${form.id}`)).body;
    // The organization of the API key: the form's, which ingest would report.
    const org = await orgOfForm(form.id);
    const now = new Date();
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
    const yesterday = new Date(now.getTime() - 86_400_000).toISOString();
    const report = (count: number, at = minute) =>
      encodeEvent(Topics.ingestAbuse, {
        id: randomUUID(),
        type: 'abuse.report',
        version: 1,
        occurredAt: now.toISOString(),
        data: {
          instance: 'ingest-e2e',
          rate: [],
          altchaUsed: [],
          blocked: [{ formId: form.id, orgId: org, layer: 'rate-limit', rule: 'per-ip', minute: at, count }],
        },
      });
    const first = report(3);
    await bus.publish(Topics.ingestAbuse, [{ key: 'ingest-e2e', value: first }]);
    await bus.publish(Topics.ingestAbuse, [{ key: 'ingest-e2e', value: first }]);
    await bus.publish(Topics.ingestAbuse, [{ key: 'ingest-e2e', value: report(2, yesterday) }]);
    await eventually(async () => expect(await detail()).toMatchObject({ blockedCount: 5 }), 30_000);
    const stats = (await api('GET', `/api/v1/forms/${form.id}/stats?days=2`)).body.data;
    expect(stats.map((d: { blocked: number }) => d.blocked)).toEqual([2, 3]);
    await settle();
    expect(await detail()).toMatchObject({ blockedCount: 5 });
  });

  it('keeps a form’s and the organization’s captcha secrets write-only, and publishes the organization’s', async () => {
    const form = await newForm();
    const secret = `sk_${randomUUID()}`;
    const captcha = { provider: 'hcaptcha', secret, minScore: null, onFailure: 'reject' };
    const set = await api('PATCH', `/api/v1/forms/${form.id}`, { settings: { spam: { captcha, shadow: true } } });
    expect(set.status).toBe(200);
    const { secret: _s, ...withoutSecret } = captcha;
    // The whole set again, the captcha without its secret: the secret is kept.
    const again = await api('PATCH', `/api/v1/forms/${form.id}`, {
      settings: { spam: { shadow: true, captcha: withoutSecret } },
    });
    expect(again.body.settings.spam).toEqual({
      shadow: true,
      captcha: { ...withoutSecret, secret: null, secretSet: true },
    });
    expect(JSON.stringify([set.body, again.body, (await api('GET', '/api/v1/forms')).body])).not.toContain(secret);

    const orgSecret = `sk_${randomUUID()}`;
    const orgCaptcha = { provider: 'turnstile', secret: orgSecret, minScore: null, onFailure: 'flag' };
    // The orgs service knows the organization once it consumed its creation from orgs.organization.
    const patched = await eventually(async () => {
      const res = await api('PATCH', '/api/v1/orgs/settings', { spam: { captcha: orgCaptcha, timeTrapSeconds: 4 } });
      expect(res.status).toBe(200);
      return res;
    }, 30_000);
    expect(patched.body.spam).toEqual({
      timeTrapSeconds: 4,
      captcha: { provider: 'turnstile', secret: null, secretSet: true, minScore: null, onFailure: 'flag' },
    });
    expect(JSON.stringify((await api('GET', '/api/v1/orgs/settings')).body)).not.toContain(orgSecret);
    const seen: string[] = [];
    const view = await bus.replay(Topics.orgsSettings, (m) => {
      const text = m.value.toString();
      if (text.includes(orgSecret)) seen.push(text);
    });
    await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(1), 30_000);
    await view.stop();
    expect(JSON.parse(seen.at(-1) as string)).toMatchObject({
      type: 'org.settings-changed',
      data: { spam: { timeTrapSeconds: 4, captcha: orgCaptcha } },
    });
  });

  /** The organization a form belongs to, as the forms service published it on `forms.form`. */
  async function orgOfForm(formId: string): Promise<string> {
    let found = '';
    const view = await bus.replay(Topics.formsForm, (m) => {
      const event = JSON.parse(m.value.toString()) as { data: { id?: string; orgId?: string } };
      if (event.data.id === formId && event.data.orgId) found = event.data.orgId;
    });
    await eventually(() => expect(found).not.toBe(''), 30_000);
    await view.stop();
    return found;
  }
});
