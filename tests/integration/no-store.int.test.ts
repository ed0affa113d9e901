import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryDto, SubmissionDto } from '@formgate/contracts';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { startWebhookRecorder } from '../harness/webhook-recorder.ts';

/**
 * Issue 31's no-store forms in embedded mode, through the running process: a submission is mailed and posted to a
 * webhook with its contents, then only its metadata stays — the list shows it emptied, its file is gone, the
 * delivery log keeps outcomes without addresses, the mail files are forgotten, and the export is refused.
 */
describe('embedded mode: a no-store form delivers, then keeps only metadata', () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookRecorder>>;
  const RECIPIENT = 'no-store-inbox@example.com';
  const MARKER = 'ephemeralwombat';

  beforeAll(async () => {
    receiver = await startWebhookRecorder();
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    await app.api('POST', '/api/v1/notification-emails', { email: RECIPIENT });
    const link = await waitForMailLink(app.dataDir, RECIPIENT, /^Confirm /);
    expect((await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app.stop();
    await receiver.close();
  });

  it('mails and posts the submission whole, then empties it, deletes its file and refuses the export', async () => {
    const form = await app.createForm({
      name: 'Ephemeral',
      settings: { storeContent: false, notifications: { emails: [RECIPIENT] } },
    });
    await eventually(async () => {
      const res = await app.api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}/hook` });
      expect(res.status).toBe(201);
    });
    const body = new FormData();
    body.append('email', 'visitor@example.com');
    body.append('message', `Hello ${MARKER}`);
    body.append('cv', new Blob([`%PDF-1.4 ${MARKER}`], { type: 'application/pdf' }), 'cv.pdf');
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };

    // Delivered whole: the webhook got the message, the mail went out.
    await eventually(() => expect(receiver.received.map((r) => r.body).join('\n')).toContain(MARKER), 15_000);
    // Then only metadata.
    const dropped = await eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(got.status).toBe(200);
      expect((got.body as SubmissionDto).contentDropped).toBe(true);
      return got.body as SubmissionDto;
    }, 20_000);
    expect(dropped).toMatchObject({ id, fields: [], files: [], origin: null, referer: null, spam: false });
    const list = await app.listSubmissions(form.id);
    expect(list.data.map((s) => s.id)).toEqual([id]);
    expect(JSON.stringify(list)).not.toContain(MARKER);

    const deliveries = (await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`)).body
      .data as DeliveryDto[];
    expect(deliveries.map((d) => [d.channel, d.status]).sort()).toEqual([
      ['email', 'succeeded'],
      ['webhook', 'succeeded'],
    ]);
    expect(JSON.stringify(deliveries)).not.toContain(RECIPIENT);

    const exported = await app.api('GET', `/api/v1/forms/${form.id}/submissions/export?format=json`);
    expect(exported.status).toBe(409);
    expect(exported.body).toMatchObject({ error: { code: 'FORMS_NOTHING_TO_EXPORT' } });

    const blobs = openSqlite(join(app.dataDir, 'blobs.db'));
    expect(blobs.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(0);
    blobs.close();
    // The mail files of its deliveries are forgotten (the confirmation mail of the address stays).
    const mailDir = join(app.dataDir, 'mail');
    const mails = readdirSync(mailDir).map((f) => readFileSync(join(mailDir, f), 'latin1'));
    expect(mails.filter((m) => m.includes(MARKER))).toEqual([]);
  });

  it('a spam submission keeps only metadata too, and marking it not spam afterwards delivers nothing', async () => {
    const form = await app.createForm({
      name: 'Ephemeral spam',
      settings: { storeContent: false, notifications: { emails: [RECIPIENT] } },
    });
    const marker = 'spammywombat';
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: `Buy ${marker}`, _gotcha: 'bot' }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    await eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(got.body).toMatchObject({ id, spam: true, contentDropped: true, fields: [] });
    }, 20_000);
    const marked = await app.api('PATCH', `/api/v1/forms/${form.id}/submissions/${id}`, { spam: false });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ spam: false, contentDropped: true, fields: [] });
    // Nothing was left to deliver: no delivery is ever planned for it.
    await new Promise((r) => setTimeout(r, 1_500));
    const deliveries = (await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`)).body
      .data as DeliveryDto[];
    expect(deliveries).toEqual([]);
    const mailDir = join(app.dataDir, 'mail');
    expect(readdirSync(mailDir).filter((f) => readFileSync(join(mailDir, f), 'latin1').includes(marker))).toEqual([]);
  });
});
