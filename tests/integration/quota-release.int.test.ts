import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { billingPeriodOf, type DeliveryDto, encodeEvent, Topics } from '@formgate/contracts';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const RECIPIENT = 'owner-inbox@example.com';
const settle = (ms = 800) => new Promise((r) => setTimeout(r, ms));

/**
 * Embedded mode, over real SMTP: an organization on a small plan (3 a month) goes over, its submissions are held;
 * a quota view with a larger max (what billing publishes after an upgrade) releases the oldest of them up to the
 * allowance, each notified once — across a restart in the middle, and whatever quota views come again.
 */
describe('embedded mode: held submissions are released when the quota allows, then notified once', () => {
  let smtp: SmtpTestServer;
  let app: TestApp;
  let key: string;
  let orgId: string;
  const dir = mkdtempSync(join(tmpdir(), 'fg-release-'));
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
    // A small plan: 3 submissions a month.
    const plans = {
      defaultPlan: 'small',
      plans: [{ id: 'small', name: 'Small', limits: { submissionsPerMonth: 3, emailsPerMonth: 100 } }],
    };
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(plans));
    const env = { PLANS_FILE: join(dir, 'plans.json'), SMTP_URL: smtp.url };
    app = await startTestApp(env, {}, mailLink);
    const owner = await app.accounts.signUp();
    orgId = (await app.accounts.createOrg(owner, 'Small plan')).id;
    key = await app.accounts.createApiKey(owner);
    const added = await api('POST', '/api/v1/notification-emails', { email: RECIPIENT });
    expect(added.status).toBe(201);
    const link = (await mailLink(RECIPIENT, /^Confirm /)).replace('//localhost:', '//127.0.0.1:');
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
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
  type Listed = { id: string; held: boolean; spam: boolean };
  const list = async (formId: string, query = '') =>
    (await api('GET', `/api/v1/forms/${formId}/submissions${query}`)).body.data as Listed[];
  /** The notification mails of a submission (their text links to it). */
  const mailsOf = (id: string) =>
    smtp.messages.filter((m) => m.to.includes(RECIPIENT) && !/^Confirm /.test(m.subject) && m.text.includes(id));
  const quota = async (used: number, max: number, id: string = randomUUID()) => {
    const value = encodeEvent(Topics.billingQuota, {
      id,
      type: 'quota.updated',
      version: 1,
      occurredAt: new Date().toISOString(),
      data: {
        orgId,
        period: billingPeriodOf(new Date()),
        submissionsUsed: used,
        submissionsMax: max,
        overQuota: used >= max,
        planId: 'pro',
      },
    });
    await app.bus.publish(Topics.billingQuota, [{ key: orgId, value }]);
    return id;
  };

  it('releases the oldest held up to the allowance, each notified once over SMTP; spam never', async () => {
    const created = await api('POST', '/api/v1/forms', {
      name: 'Quote',
      settings: { notifications: { emails: [RECIPIENT] } },
    });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    await app.waitForForm(form.key);
    const visible: string[] = [];
    for (const i of [1, 2, 3]) visible.push(await post(form.key, `i=${i}`));
    await eventually(async () => {
      const usage = await api('GET', '/api/v1/billing/usage');
      expect(usage.body.submissions).toMatchObject({ used: 3, max: 3 });
    });
    await eventually(() => expect(visible.map((id) => mailsOf(id).length)).toEqual([1, 1, 1]));
    await settle(300); // ingest's quota view sees the organization go over
    const held: string[] = [];
    for (const i of [4, 5, 6, 7]) held.push(await post(form.key, `i=${i}`));
    const spam = await post(form.key, 'i=spam&_honey=x');
    await eventually(async () => expect(await list(form.id, '?held=true')).toHaveLength(4));
    await eventually(async () => expect(await list(form.id)).toHaveLength(4)); // and the spam one: never held
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body).toMatchObject({ submissionCount: 4, heldCount: 4 });

    // An upgrade: billing's view now allows 5 this period, 3 used → the 2 oldest held are released.
    const upgrade = await quota(3, 5);
    await app.restart(); // in the middle of the release and its notifications
    await eventually(async () =>
      expect((await list(form.id, '?held=true')).map((s) => s.id)).toEqual([held[3], held[2]]),
    );
    const shown = await list(form.id);
    expect(shown.map((s) => s.id)).toEqual([spam, held[1], held[0], ...[...visible].reverse()]);
    expect(shown.every((s) => !s.held)).toBe(true);
    await eventually(() => expect(held.map((id) => mailsOf(id).length)).toEqual([1, 1, 0, 0]), 5_000);
    await eventually(async () =>
      expect((await api('GET', `/api/v1/forms/${form.id}`)).body).toMatchObject({ submissionCount: 6, heldCount: 2 }),
    );
    const log = (await api('GET', `/api/v1/forms/${form.id}/submissions/${held[0]}/deliveries`)).body
      .data as DeliveryDto[];
    expect(log.map((d) => [d.channel, d.target, d.status])).toEqual([['email', RECIPIENT, 'succeeded']]);

    // The same view again (a redelivery), one counting a release (billing lags), another restart: nothing more.
    await quota(3, 5, upgrade);
    await quota(4, 5);
    await app.restart();
    await settle();
    expect(await list(form.id, '?held=true')).toHaveLength(2);
    expect(held.map((id) => mailsOf(id).length)).toEqual([1, 1, 0, 0]);

    // A larger plan: the rest are released too, once each.
    await quota(5, 50);
    await eventually(async () => expect(await list(form.id, '?held=true')).toEqual([]));
    await eventually(() => expect(held.map((id) => mailsOf(id).length)).toEqual([1, 1, 1, 1]), 5_000);
    await settle();
    expect([...visible, ...held].map((id) => mailsOf(id).length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(mailsOf(spam)).toEqual([]);
    expect((await api('GET', `/api/v1/forms/${form.id}`)).body).toMatchObject({ submissionCount: 8, heldCount: 0 });
  });
});
