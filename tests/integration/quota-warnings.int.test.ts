import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const settle = (ms = 800) => new Promise((r) => setTimeout(r, ms));

/**
 * Embedded mode, over real SMTP: an organization on a 5-a-month plan hears at 80 % and at 100 % of its submissions,
 * once each — its owner and admin do, its plain member does not, another organization does not — and a restart
 * (billing republishing, the warning consumer reading again) sends nothing twice.
 */
describe('embedded mode: quota warnings to owners and admins at 80 % and 100 %', () => {
  let smtp: SmtpTestServer;
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'fg-warnings-'));
  const people: Record<'owner' | 'admin' | 'member' | 'stranger', string> = {
    owner: '',
    admin: '',
    member: '',
    stranger: '',
  };
  let formKey = '';
  let otherFormKey = '';

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    const mailLink = (to: string, subject: RegExp) =>
      eventually(async () => {
        const mail = smtp.messages.filter((m) => m.to.includes(to) && subject.test(m.subject)).at(-1);
        const link = mail?.text.match(/https?:\/\/[^\s<>"]+/)?.[0];
        if (!link) throw new Error(`no "${subject}" mail for ${to} yet`);
        return link;
      });
    const plans = {
      defaultPlan: 'tiny',
      plans: [{ id: 'tiny', name: 'Tiny', limits: { submissionsPerMonth: 5, emailsPerMonth: 100 } }],
    };
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(plans));
    app = await startTestApp({ PLANS_FILE: join(dir, 'plans.json'), SMTP_URL: smtp.url }, {}, mailLink);
    const owner = await app.accounts.signUp();
    const org = await app.accounts.createOrg(owner, 'Warned org');
    const admin = await app.accounts.addMember(owner, org, 'admin');
    const member = await app.accounts.addMember(owner, org, 'member');
    Object.assign(people, { owner: owner.email, admin: admin.email, member: member.email });
    const key = await app.accounts.createApiKey(owner);
    formKey = await createForm(key);
    const stranger = await app.accounts.signUp();
    await app.accounts.createOrg(stranger, 'Quiet org');
    people.stranger = stranger.email;
    otherFormKey = await createForm(await app.accounts.createApiKey(stranger));
  });
  afterAll(async () => {
    await app?.stop();
    await smtp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function createForm(key: string) {
    const res = await fetch(`${app.baseUrl}/api/v1/forms`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Contact' }),
    });
    const form = (await res.json()) as { key: string };
    await app.waitForForm(form.key);
    return form.key;
  }
  const post = async (key: string, i: number) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `i=${i}`,
    });
    expect(res.status).toBe(200);
  };
  const warnings = () =>
    smtp.messages
      .filter((m) => /of its submissions for this month/.test(m.subject))
      .map((m) => ({ to: m.to.join(','), subject: m.subject }))
      .sort((a, b) => (a.to + a.subject).localeCompare(b.to + b.subject));
  const expected = (subject: string) =>
    [people.admin, people.owner].sort().map((to) => ({ to, subject: `Warned org ${subject}` }));

  it('warns the owner and the admin once at 80 %, with the link to billing', async () => {
    for (const i of [1, 2, 3]) await post(formKey, i);
    await settle();
    expect(warnings()).toEqual([]);
    await post(formKey, 4);
    await eventually(() => expect(warnings()).toEqual(expected('has used 80% of its submissions for this month')));
    const mail = smtp.messages.find((m) => m.subject.includes('80%'));
    expect(mail?.text).toContain('4 of its 5 submissions');
    expect(mail?.text).toMatch(/\/dashboard\/billing/);
  });

  it('warns once more at 100 %, and never again this period, across a restart', async () => {
    await post(formKey, 5);
    await eventually(() =>
      expect(warnings()).toEqual(
        [
          ...expected('has used 80% of its submissions for this month'),
          ...expected('has used all of its submissions for this month'),
        ].sort((a, b) => (a.to + a.subject).localeCompare(b.to + b.subject)),
      ),
    );
    const before = warnings().length;
    // Held from here on: accepted, and nobody is told again.
    for (const i of [6, 7]) await post(formKey, i);
    await app.restart();
    await post(formKey, 8);
    await settle(1_500);
    expect(warnings()).toHaveLength(before);
    expect(warnings().some((w) => w.to === people.member || w.to === people.stranger)).toBe(false);
  });

  it('does not warn an organization under 80 %', async () => {
    for (const i of [1, 2, 3]) await post(otherFormKey, i);
    await settle();
    expect(warnings().some((w) => w.subject.startsWith('Quiet org'))).toBe(false);
  });
});
