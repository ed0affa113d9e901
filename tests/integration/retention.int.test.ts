import { join } from 'node:path';
import type { DeliveryDto, FormRetentionDto, RetentionPolicyDto } from '@formgate/contracts';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const DAY = 86_400_000;

/**
 * Issue 31's retention in embedded mode, through the running process: the policy's routes and their limits, then
 * submissions aged in `forms.db` while the instance is down (the sweep's clock is the machine's) are deleted by the
 * sweep the restarted instance runs at start, with their file, the notifications' copy and the delivery log's
 * content; the younger ones stay, and the form's retention says when the oldest of them goes.
 */
describe('embedded mode: the retention sweep deletes what the policy no longer keeps', () => {
  let app: TestApp;
  const RECIPIENT = 'retention-inbox@example.com';

  beforeAll(async () => {
    app = await startTestApp();
    await app.api('POST', '/api/v1/notification-emails', { email: RECIPIENT });
    const link = await waitForMailLink(app.dataDir, RECIPIENT, /^Confirm /);
    expect((await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' })).status).toBe(303);
  });
  afterAll(async () => {
    await app.stop();
  });

  const submit = async (key: string, body: FormData) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  it("answers the organization's default and the plan's maximum, and refuses more than the plan allows", async () => {
    expect((await app.api('GET', '/api/v1/retention')).body).toEqual({ days: null, planMaxDays: 365 });
    const refused = await app.api('PATCH', '/api/v1/retention', { days: 366 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      error: {
        code: 'PLAN_LIMIT_REACHED',
        message: "The organization's plan keeps submissions at most 365 days",
        details: { limit: 'retentionDays', max: 365 },
      },
    });
    const form = await app.createForm({ name: 'Too long' });
    const patched = await app.api('PATCH', `/api/v1/forms/${form.id}`, { settings: { retentionDays: 400 } });
    expect(patched.status).toBe(403);
    expect(patched.body).toMatchObject({ error: { code: 'PLAN_LIMIT_REACHED', details: { limit: 'retentionDays' } } });
    const set = await app.api('PATCH', '/api/v1/retention', { days: 60 });
    expect(set.body as RetentionPolicyDto).toEqual({ days: 60, planMaxDays: 365 });
    const retention = (await app.api('GET', `/api/v1/forms/${form.id}/retention`)).body as FormRetentionDto;
    expect(retention).toEqual({
      days: 60,
      source: 'organization',
      formDays: null,
      organizationDays: 60,
      planMaxDays: 365,
      oldestSubmissionAt: null,
      nextDeletionAt: null,
    });
  });

  it('deletes expired submissions with their file, copy and delivery content at the next sweep', async () => {
    const form = await app.createForm({
      name: 'Short-lived',
      settings: { retentionDays: 30, notifications: { emails: [RECIPIENT] } },
    });
    const messages = ['oldmessagealpha', 'oldmessagebeta', 'freshmessage'];
    const ids: string[] = [];
    for (const message of messages) {
      const body = new FormData();
      body.append('message', message);
      body.append('cv', new Blob([`%PDF-1.4 ${message}`], { type: 'application/pdf' }), 'cv.pdf');
      ids.push(await submit(form.key, body));
    }
    const deliveries = async (id: string) =>
      (await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/deliveries`)).body.data as DeliveryDto[];
    await eventually(async () => {
      for (const id of ids) expect((await deliveries(id)).map((d) => d.status)).toEqual(['succeeded']);
      expect((await app.listSubmissions(form.id)).data).toHaveLength(3);
    }, 15_000);
    const [oldA, oldB, fresh] = ids as [string, string, string];

    // Down, two of them are aged past the form's 30 days (the third 29 days old) where the sweep reads them.
    await app.restart(() => {
      const db = openSqlite(join(app.dataDir, 'forms.db'));
      const age = db.prepare('UPDATE submissions SET created_at = ? WHERE id = ?');
      const now = Date.now();
      age.run(new Date(now - 45 * DAY).toISOString(), oldA);
      age.run(new Date(now - 31 * DAY).toISOString(), oldB);
      age.run(new Date(now - 29 * DAY).toISOString(), fresh);
      db.close();
    });

    await eventually(async () => {
      expect((await app.listSubmissions(form.id)).data.map((s) => s.id)).toEqual([fresh]);
    }, 15_000);
    for (const id of [oldA, oldB]) {
      const res = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(res.status).toBe(404);
      // The delivery log keeps the outcome, without the recipient.
      await eventually(async () => {
        const [delivery] = await deliveries(id);
        expect(delivery).toMatchObject({ status: 'succeeded', target: 'erased' });
      });
    }
    const [kept] = await deliveries(fresh);
    expect(kept).toMatchObject({ status: 'succeeded', target: RECIPIENT });
    const retention = (await app.api('GET', `/api/v1/forms/${form.id}/retention`)).body as FormRetentionDto;
    expect(retention).toMatchObject({ days: 30, source: 'form', formDays: 30, organizationDays: 60 });
    expect(Date.parse(retention.nextDeletionAt ?? '') - Date.parse(retention.oldestSubmissionAt ?? '')).toBe(30 * DAY);
    // The expired submissions' files are gone from blobs.db; the kept one's is there.
    const blobs = openSqlite(join(app.dataDir, 'blobs.db'));
    expect(blobs.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(1);
    blobs.close();
  });
});
