import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BillingUsageDto, type DeliveryDto, Topics } from '@formgate/contracts';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionChanged } from '../../services/billing/test/events.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const RECIPIENT = 'owner-inbox@example.com';
const settle = (ms = 800) => new Promise((r) => setTimeout(r, ms));

/** What the gateway's Stripe plugin publishes when the organization subscribes to `pro`. */
const upgrade = (orgId: string) => subscriptionChanged(orgId, new Date().toISOString());

/**
 * Embedded mode, over real SMTP (issue 13 with 12): an organization on a plan of 2 emails a month gets its first two
 * notifications; the next ones are deferred (the delivery log says so, billing counts them, nothing is mailed), stay
 * deferred across a restart, and are mailed once each when an upgrade raises the maximum.
 */
describe('embedded mode: notification emails over quota are deferred, then sent once the quota allows', () => {
  let smtp: SmtpTestServer;
  let app: TestApp;
  let key: string;
  let orgId: string;
  const dir = mkdtempSync(join(tmpdir(), 'fg-deferred-'));
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
    const plans = {
      defaultPlan: 'small',
      plans: [
        { id: 'small', name: 'Small', limits: { submissionsPerMonth: 100, emailsPerMonth: 2 } },
        { id: 'pro', name: 'Pro', limits: { submissionsPerMonth: 1000, emailsPerMonth: 50 } },
      ],
    };
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(plans));
    app = await startTestApp({ PLANS_FILE: join(dir, 'plans.json'), SMTP_URL: smtp.url }, {}, mailLink);
    const owner = await app.accounts.signUp();
    orgId = (await app.accounts.createOrg(owner, 'Two emails a month')).id;
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
  /** The notification mails of a submission (their text links to it). */
  const mailsOf = (id: string) =>
    smtp.messages.filter((m) => m.to.includes(RECIPIENT) && !/^Confirm /.test(m.subject) && m.text.includes(id));
  const emails = async () => ((await api('GET', '/api/v1/billing/usage')).body as unknown as BillingUsageDto).emails;
  const logOf = async (formId: string, id: string) =>
    ((await api('GET', `/api/v1/forms/${formId}/submissions/${id}/deliveries`)).body.data as DeliveryDto[]).map((d) => [
      d.channel,
      d.target,
      d.status,
      d.attempts,
    ]);

  it('mails 2, defers the next 2 across a restart, and mails them once each after an upgrade', async () => {
    const created = await api('POST', '/api/v1/forms', {
      name: 'Contact',
      settings: { notifications: { emails: [RECIPIENT] } },
    });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    await app.waitForForm(form.key);

    const sent: string[] = [];
    for (const i of [1, 2]) {
      sent.push(await post(form.key, `i=${i}`));
      await eventually(() => expect(mailsOf(sent.at(-1) as string)).toHaveLength(1));
    }
    await eventually(async () => expect(await emails()).toEqual({ used: 2, max: 2, deferred: 0 }));
    await settle(300); // notifications' quota view sees billing's count

    const deferred = [await post(form.key, 'i=3'), await post(form.key, 'i=4')];
    for (const id of deferred) {
      await eventually(async () => expect(await logOf(form.id, id)).toEqual([['email', RECIPIENT, 'deferred', 0]]));
    }
    await eventually(async () => expect(await emails()).toEqual({ used: 2, max: 2, deferred: 2 }));
    await settle();
    expect(deferred.map((id) => mailsOf(id).length)).toEqual([0, 0]);

    // A restart: they are in the delivery store, still deferred, still not mailed.
    await app.restart();
    await settle(1_500);
    for (const id of deferred) expect(await logOf(form.id, id)).toEqual([['email', RECIPIENT, 'deferred', 0]]);
    expect(deferred.map((id) => mailsOf(id).length)).toEqual([0, 0]);
    expect(await emails()).toEqual({ used: 2, max: 2, deferred: 2 });

    // The upgrade: billing's view raises the maximum to 50; both go out, once each, and billing counts them.
    await app.bus.publish(Topics.billingSubscription, [upgrade(orgId)]);
    await eventually(() => expect(deferred.map((id) => mailsOf(id).length)).toEqual([1, 1]), 10_000);
    await eventually(async () => expect(await emails()).toEqual({ used: 4, max: 50, deferred: 0 }));
    for (const id of deferred) expect(await logOf(form.id, id)).toEqual([['email', RECIPIENT, 'succeeded', 1]]);

    // Nothing more: the same quota views again after another restart mail nothing twice.
    await app.restart();
    await settle(1_500);
    expect([...sent, ...deferred].map((id) => mailsOf(id).length)).toEqual([1, 1, 1, 1]);
    expect(await emails()).toEqual({ used: 4, max: 50, deferred: 0 });
  });
});
