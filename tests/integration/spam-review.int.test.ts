import { randomUUID } from 'node:crypto';
import { encodeEvent, Topics } from '@formgate/contracts';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const RECIPIENT = 'spam-review-inbox@example.com';
const settle = (ms = 800) => new Promise((r) => setTimeout(r, ms));

/**
 * Embedded mode, over real SMTP (issue 14, the review side): "not spam" releases a spam submission — notified and
 * billed once, however often it is toggled, redelivered or the app restarted; blocked requests reported on
 * `ingest.abuse` are counted per form and day, each report once; a form's spam settings never show the captcha
 * secret.
 */
describe('embedded mode: spam review', () => {
  let smtp: SmtpTestServer;
  let app: TestApp;
  let key: string;
  let orgId: string;
  const linkIn = (text: string) => text.match(/https?:\/\/[^\s<>"]+/)?.[0];
  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    const mailLink = (to: string, subject: RegExp) =>
      eventually(async () => {
        const mail = smtp.messages.filter((m) => m.to.includes(to) && subject.test(m.subject)).at(-1);
        const link = mail && linkIn(mail.text);
        if (!link) throw new Error(`no "${subject}" mail for ${to} yet`);
        return link;
      });
    app = await startTestApp({ SMTP_URL: smtp.url }, {}, mailLink);
    const owner = await app.accounts.signUp();
    orgId = (await app.accounts.createOrg(owner, 'Spam review')).id;
    key = await app.accounts.createApiKey(owner);
    expect((await api('POST', '/api/v1/notification-emails', { email: RECIPIENT })).status).toBe(201);
    const link = (await mailLink(RECIPIENT, /^Confirm /)).replace('//localhost:', '//127.0.0.1:');
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
  });

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes
    return { status: res.status, body: (await res.json()) as any };
  }
  const post = async (formKey: string, body: string) => {
    const res = await fetch(`${app.baseUrl}/f/${formKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const mailsOf = (id: string) =>
    smtp.messages.filter((m) => m.to.includes(RECIPIENT) && !/^Confirm /.test(m.subject) && m.text.includes(id));
  const used = async () => (await api('GET', '/api/v1/billing/usage')).body.submissions.used as number;
  const newForm = async (settings: Record<string, unknown> = {}) => {
    const created = await api('POST', '/api/v1/forms', {
      name: `Review ${randomUUID().slice(0, 6)}`,
      settings: { notifications: { emails: [RECIPIENT] }, ...settings },
    });
    expect(created.status).toBe(201);
    await app.waitForForm(created.body.key);
    return created.body as { id: string; key: string };
  };

  it('"not spam" releases a spam submission: one mail, one usage count, whatever the toggles and restarts', async () => {
    const form = await newForm({ notifications: { emails: [RECIPIENT], subject: 'Lead: {{subject}}' } });
    const before = await eventually(async () => {
      const n = await used();
      expect(n).toBeGreaterThanOrEqual(0);
      return n;
    });
    const clean = await post(form.key, 'email=ann%40example.com&msg=hello');
    const spam = await post(form.key, `email=bob%40example.com&msg=%3Cb%3Ebuy%3C%2Fb%3E&_gotcha=bot&_subject=Quote`);
    await eventually(() => expect(mailsOf(clean)).toHaveLength(1));
    await eventually(async () => expect(await used()).toBe(before + 1));
    await settle();
    expect(mailsOf(spam)).toEqual([]);
    const listed = await api('GET', `/api/v1/forms/${form.id}/submissions/${spam}`);
    expect(listed.body).toMatchObject({ spam: true, spamReasons: [{ layer: 'honeypot', rule: 'field-filled' }] });

    const marked = await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: false });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ id: spam, spam: false, spamReasons: [{ layer: 'honeypot' }] });
    await eventually(() => expect(mailsOf(spam)).toHaveLength(1), 5_000);
    // The submitter's reserved fields were kept for the release: the mail has its subject.
    expect(mailsOf(spam)[0]?.subject).toBe('Lead: Quote');
    await eventually(async () => expect(await used()).toBe(before + 2));
    const log = (await api('GET', `/api/v1/forms/${form.id}/submissions/${spam}/deliveries`)).body.data;
    expect(log.map((d: { channel: string; status: string }) => [d.channel, d.status])).toEqual([
      ['email', 'succeeded'],
    ]);

    // Toggles (single and bulk), a clean one marked spam and back, and a restart: nothing more.
    await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: true });
    await api('PATCH', `/api/v1/forms/${form.id}/submissions/${spam}`, { spam: false });
    await api('POST', `/api/v1/forms/${form.id}/submissions/bulk`, { action: 'spam', ids: [spam, clean] });
    const bulk = await api('POST', `/api/v1/forms/${form.id}/submissions/bulk`, {
      action: 'not-spam',
      ids: [spam, clean],
    });
    expect(bulk.body.data).toEqual([
      { id: spam, result: 'changed' },
      { id: clean, result: 'changed' },
    ]);
    await app.restart();
    await settle(1_500);
    expect(mailsOf(spam)).toHaveLength(1);
    expect(mailsOf(clean)).toHaveLength(1);
    expect(await used()).toBe(before + 2);
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body).toMatchObject({ submissionCount: 2, spamCount: 0 });
  });

  it('a spam submission released through the bulk action is notified and billed once too', async () => {
    const form = await newForm();
    const [a, b] = [await post(form.key, 'm=1&_gotcha=x'), await post(form.key, 'm=2&_gotcha=x')];
    await eventually(async () =>
      expect((await api('GET', `/api/v1/forms/${form.id}`)).body).toMatchObject({ spamCount: 2 }),
    );
    const before = await used();
    const bulk = await api('POST', `/api/v1/forms/${form.id}/submissions/bulk`, { action: 'not-spam', ids: [a, b] });
    expect(bulk.status).toBe(200);
    await eventually(() => expect([mailsOf(a).length, mailsOf(b).length]).toEqual([1, 1]), 5_000);
    await eventually(async () => expect(await used()).toBe(before + 2));
    await settle();
    expect([mailsOf(a).length, mailsOf(b).length]).toEqual([1, 1]);
  });

  it('counts blocked requests reported on ingest.abuse per form and UTC day, a redelivered report once', async () => {
    const form = await newForm();
    const other = await newForm();
    const detail = async (id: string) => (await api('GET', `/api/v1/forms/${id}`)).body;
    const now = new Date();
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
    const yesterday = new Date(now.getTime() - 86_400_000).toISOString();
    const old = new Date(now.getTime() - 40 * 86_400_000).toISOString();
    const report = (id: string, blocked: { formId: string; minute: string; count: number }[]) =>
      encodeEvent(Topics.ingestAbuse, {
        id,
        type: 'abuse.report',
        version: 1,
        occurredAt: now.toISOString(),
        data: {
          instance: 'ingest-test',
          rate: [],
          altchaUsed: [],
          blocked: blocked.map((b) => ({ ...b, orgId, layer: 'origin' as const, rule: 'origin-not-allowed' })),
        },
      });
    const first = report(randomUUID(), [
      { formId: form.id, minute, count: 3 },
      { formId: form.id, minute: yesterday, count: 2 },
      { formId: form.id, minute: old, count: 50 },
      { formId: other.id, minute, count: 1 },
    ]);
    await app.bus.publish(Topics.ingestAbuse, [{ key: 'ingest-test', value: first }]);
    await app.bus.publish(Topics.ingestAbuse, [{ key: 'ingest-test', value: first }]); // a redelivery
    await app.bus.publish(Topics.ingestAbuse, [
      { key: 'ingest-test', value: report(randomUUID(), [{ formId: form.id, minute, count: 4 }]) },
    ]);
    await eventually(async () => expect(await detail(form.id)).toMatchObject({ blockedCount: 9 }));
    expect(await detail(other.id)).toMatchObject({ blockedCount: 1 });
    const listed = (await api('GET', '/api/v1/forms')).body.data.find((f: { id: string }) => f.id === form.id);
    expect(listed).toMatchObject({ blockedCount: 9, submissionCount: 0 });
    const stats = (await api('GET', `/api/v1/forms/${form.id}/stats?days=3`)).body.data;
    expect(stats.map((d: { blocked: number }) => d.blocked)).toEqual([0, 2, 7]);
    const long = (await api('GET', `/api/v1/forms/${form.id}/stats?days=60`)).body.data;
    expect(long.reduce((s: number, d: { blocked: number }) => s + d.blocked, 0)).toBe(59);
    await app.restart();
    await settle();
    expect(await detail(form.id)).toMatchObject({ blockedCount: 9 });
  });

  it('PATCH settings.spam replaces the form’s own settings whole, keeps and never returns the captcha secret, and reaches ingest', async () => {
    const form = await newForm();
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body.settings.spam).toBeNull();
    const secret = `sk_${randomUUID()}`;
    const captcha = { provider: 'turnstile', secret, minScore: null, onFailure: 'reject' };
    const set = await api('PATCH', `/api/v1/forms/${form.id}`, { settings: { spam: { captcha, timeTrapSeconds: 3 } } });
    expect(set.status).toBe(200);
    expect(set.body.settings.spam).toEqual({
      timeTrapSeconds: 3,
      captcha: { provider: 'turnstile', secret: null, secretSet: true, minScore: null, onFailure: 'reject' },
    });
    expect(JSON.stringify(set.body)).not.toContain(secret);
    // The whole set again with the captcha without its secret (same provider): the secret is kept; a key left out
    // (timeTrapSeconds) falls back to the organization's default.
    const { secret: _s, ...withoutSecret } = captcha;
    const kept = await api('PATCH', `/api/v1/forms/${form.id}`, {
      settings: { spam: { origins: 'flag', captcha: { ...withoutSecret, onFailure: 'flag' } } },
    });
    expect(kept.body.settings.spam).toEqual({
      origins: 'flag',
      captcha: { provider: 'turnstile', secret: null, secretSet: true, minScore: null, onFailure: 'flag' },
    });
    const read = await api('GET', `/api/v1/forms/${form.id}`);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const listed = await api('GET', '/api/v1/forms');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // Ingest reads the secret from forms.form: the snapshot on the log still has it.
    await eventually(async () => {
      const snapshots: string[] = [];
      const sub = await app.bus.replay(Topics.formsForm, (m) => {
        const text = m.value.toString();
        if (text.includes(form.id)) snapshots.push(text);
      });
      await sub.stop();
      const last = JSON.parse(snapshots.at(-1) as string);
      expect(last.data.settings.spam.captcha).toMatchObject({ provider: 'turnstile', secret, onFailure: 'flag' });
    });
    // A provider that needs a secret, without one: refused; a bad value: refused; neither changed anything.
    const missing = await api('PATCH', `/api/v1/forms/${form.id}`, {
      settings: { spam: { captcha: { ...withoutSecret, provider: 'hcaptcha' } } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION_FAILED');
    const bad = await api('PATCH', `/api/v1/forms/${form.id}`, { settings: { spam: { origins: 'maybe' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body.settings.spam.captcha.provider).toBe('turnstile');
    // ALTCHA keeps no secret; null drops the form's own settings (the organization's defaults apply).
    const altcha = await api('PATCH', `/api/v1/forms/${form.id}`, {
      settings: { spam: { captcha: { provider: 'altcha', minScore: null, onFailure: 'flag' } } },
    });
    expect(altcha.body.settings.spam.captcha).toEqual({
      provider: 'altcha',
      secret: null,
      secretSet: false,
      minScore: null,
      onFailure: 'flag',
    });
    const cleared = await api('PATCH', `/api/v1/forms/${form.id}`, { settings: { spam: null } });
    expect(cleared.body.settings.spam).toBeNull();
  });
});
