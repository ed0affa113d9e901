import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryDto } from '@formgate/contracts';
import type { MailFileSummary } from '@formgate/mail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const RECIPIENTS = ['one@example.com', 'two@example.com'];

/** Embedded mode end to end: ingest → notifications consumer → the file mailer (no SMTP_URL) → the delivery log. */
describe('embedded mode: notifications of a submission', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    // Double opt-in, as an owner does it: add each address, open the link the mail carries.
    for (const email of RECIPIENTS) {
      const added = await app.api('POST', '/api/v1/notification-emails', { email });
      expect([added.status, added.body.verified]).toEqual([201, false]);
      const link = await waitForMailLink(app.dataDir, email, /^Confirm /);
      const opened = await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' });
      expect(opened.status).toBe(303);
      expect(new URL(opened.headers.get('location') ?? '', app.baseUrl).pathname).toBe(
        `/dashboard/emails/verification-success/${encodeURIComponent(email)}`,
      );
    }
    const listed = await app.api('GET', '/api/v1/notification-emails');
    expect((listed.body.data as { email: string; verified: boolean }[]).map((r) => [r.email, r.verified])).toEqual(
      RECIPIENTS.map((email) => [email, true]),
    );
  });
  afterAll(async () => {
    await app.stop();
  });

  const mailsTo = (address: string) => {
    const dir = join(app.dataDir, 'mail');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as MailFileSummary)
      .filter((m) => m.to === address && !m.subject.startsWith('Confirm '));
  };

  it('mails each verified recipient once, logs both deliveries, and a resend makes a third', async () => {
    const form = await app.createForm({
      name: 'Contact',
      settings: { notifications: { emails: [...RECIPIENTS, 'unverified@example.com'] } },
    });
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: '<script>alert(1)</script>' }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const path = `/api/v1/forms/${form.id}/submissions/${id}/deliveries`;

    const log = await eventually(async () => {
      const { status, body } = await app.api('GET', path);
      expect(status).toBe(200);
      const data = body.data as DeliveryDto[];
      expect(data.map((d) => `${d.target} ${d.status}`).sort()).toEqual(RECIPIENTS.map((r) => `${r} succeeded`));
      return data;
    });
    for (const r of RECIPIENTS) {
      // The React Email composer: its subject, and a link to the submission in the dashboard.
      expect(mailsTo(r).map((m) => m.subject)).toEqual(['New submission to Contact']);
      expect(mailsTo(r)[0]?.text).toContain('<script>alert(1)</script>');
      expect(mailsTo(r)[0]?.links.some((l) => l.endsWith(`/submissions/${id}`))).toBe(true);
    }
    expect(mailsTo('unverified@example.com')).toEqual([]);

    const resent = await app.api('POST', `${path}/${log[0]?.id}/resend`, {});
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ resendOf: log[0]?.id, status: 'succeeded' });
    // A new message, not a retry: mail clients must not drop it as a duplicate of the first.
    expect(resent.body.messageId).toEqual(expect.stringMatching(/^<[0-9a-f]{32}@/));
    expect(resent.body.messageId).not.toBe(log[0]?.messageId);
    expect(mailsTo(log[0]?.target as string)).toHaveLength(2);
    expect(((await app.api('GET', path)).body.data as DeliveryDto[]).map((d) => d.resendOf)).toEqual(
      expect.arrayContaining([null, null, log[0]?.id]),
    );
  });

  it('never notifies of a spam submission', async () => {
    const form = await app.createForm({ name: 'Guarded', settings: { notifications: { emails: RECIPIENTS } } });
    const before = mailsTo('one@example.com').length;
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: 'buy now', _gotcha: 'bot' }),
    });
    const { id } = (await res.json()) as { id: string };
    const ok = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    const { id: okId } = (await ok.json()) as { id: string };
    await eventually(async () => {
      const data = (await app.api('GET', `/api/v1/forms/${form.id}/submissions/${okId}/deliveries`)).body
        .data as DeliveryDto[];
      expect(data.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    });
    expect((await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`)).body.data).toEqual([]);
    expect(mailsTo('one@example.com')).toHaveLength(before + 1);
  });
});
