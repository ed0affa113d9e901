import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_NOTIFICATIONS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { createMailFiles } from '@formgate/mail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeptMail } from '../src/email/kept-mail.ts';
import { ERASED } from '../src/store/index.ts';
import { verifiesWith } from './standard-webhooks-verifier.ts';
import { type ReceivedRequest, startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const SUBMITTER = 'erased.person@example.com';
const OWNER = 'owner@example.com';

/** A receiver's answer that echoes the fields it was sent (the delivery log keeps the start of a response). */
const echo =
  (status: number): WebhookReceiver['handler'] =>
  (request, response) => {
    response.statusCode = status;
    response.end(JSON.stringify((JSON.parse(request.body) as { data?: { fields?: unknown } }).data?.fields ?? null));
  };

/** The file mailer's copies of a message: `<timestamp>-<Message-ID made a file name>.eml` and `.json`. */
const fileMailOf = (dir: string): KeptMail => createMailFiles(dir);

describe('an erasure by submitter (issue 31), on the embedded log and SQLite', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true, keptMail: fileMailOf });
    receiver = await startReceiver();
    receiver.handler = echo(200);
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
  });
  const path = () => `/${randomUUID()}`;
  const at = (p: string) => receiver.requests.filter((r) => r.url === p);
  const bodyOf = (r: ReceivedRequest | undefined) => JSON.parse(r?.body ?? '{}') as Record<string, unknown>;

  /**
   * `submission.deleted` of an erasure (or of the retention: `expired`), as the forms service publishes it; answers
   * the published event's value.
   */
  const erase = async (form: Form, submissionId: string, receivedAt: string, value?: string, expired = false) => {
    const data = { submissionId, formId: form.id, orgId: form.orgId, receivedAt, wasSpam: false };
    const erasure =
      value ??
      encodeEvent(Topics.formsSubmission, {
        id: randomUUID(),
        type: 'submission.deleted',
        version: 1,
        occurredAt: new Date(svc.clock.now).toISOString(),
        data: expired ? { ...data, expired: true } : { ...data, erasure: 'er_1' },
      });
    await svc.bus.publish(Topics.formsSubmission, [{ key: form.id, value: erasure }]);
    return erasure;
  };

  /** A form with a notification address, an autoresponse and three endpoints; one submission sent to all. */
  async function notified() {
    const orgId = `org_${randomUUID()}`;
    await svc.verify(orgId, OWNER);
    const form = await svc.publishForm(orgId, {
      notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: [OWNER], autoresponse: { enabled: true, text: 'Hi' } },
    });
    const [got, slack, deletions] = [path(), path(), path()];
    const hook = await svc.addWebhook(form, { url: `${receiver.url}${got}` });
    await svc.addWebhook(form, { url: `${receiver.url}${slack}`, kind: 'slack' });
    await svc.addWebhook(form, { url: `${receiver.url}${deletions}`, events: ['submission.deleted'] });
    const receivedAt = new Date(svc.clock.now).toISOString();
    const submissionId = await svc.submit(form, { fields: [{ name: 'email', value: SUBMITTER }] });
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, submissionId)).map((d) => d.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
        'succeeded',
      ]),
    );
    return { form, submissionId, receivedAt, hook, got, slack, deletions };
  }
  const mailsOf = (submissionId: string) => svc.mails().filter((m) => m.subject.endsWith(submissionId));

  it('sends submission.erased only to the endpoints that got the submission, and keeps no content', async () => {
    const { form, submissionId, receivedAt, hook, got, slack, deletions } = await notified();
    expect(mailsOf(submissionId).map((m) => m.to)).toEqual(expect.arrayContaining([SUBMITTER, OWNER]));
    const before = await svc.deliveriesOf(form, submissionId);

    await erase(form, submissionId, receivedAt);
    await eventually(() => expect(at(got)).toHaveLength(2));
    await eventually(() => expect(at(slack)).toHaveLength(2));
    const request = at(got)[1] as ReceivedRequest;
    expect(verifiesWith(hook.secret, request.headers, request.body)).toBe(true);
    expect(bodyOf(request)).toEqual({
      type: 'submission.erased',
      timestamp: new Date(svc.clock.now).toISOString(),
      data: {
        id: submissionId,
        formId: form.id,
        createdAt: receivedAt,
        erasureId: 'er_1',
        form: { id: form.id, name: 'Contact <b>us</b>' },
      },
    });
    expect(bodyOf(at(slack)[1])).toMatchObject({ text: 'Submission erased from Contact &lt;b&gt;us&lt;/b&gt;' });
    expect(at(slack)[1]?.body).not.toContain(SUBMITTER);
    // Subscribed to deletions, never sent the submission: nothing.
    expect(at(deletions)).toEqual([]);

    const after = await eventually(async () => {
      const list = await svc.deliveriesOf(form, submissionId);
      expect(list.filter((d) => d.status === 'succeeded')).toHaveLength(6);
      return list;
    });
    expect(JSON.stringify(after)).not.toContain(SUBMITTER);
    expect(JSON.stringify(after)).not.toContain(OWNER);
    const emails = after.filter((d) => d.channel === 'email');
    expect(emails.map((d) => [d.purpose, d.target, d.lastResponse?.text]).sort()).toEqual([
      ['autoresponse', ERASED, ERASED],
      ['notification', ERASED, ERASED],
    ]);
    // The outcomes stay, and the erased event went to the endpoints that had been sent the submission.
    const outcomes = (list: typeof after) => list.map((d) => [d.id, d.status, d.attempts, d.messageId]);
    const originals = new Set(before.map((d) => d.id));
    expect(outcomes(after.filter((d) => originals.has(d.id)))).toEqual(outcomes(before));
    const targets = (list: typeof after) => list.flatMap((d) => (d.channel === 'webhook' ? [d.targetId] : [])).sort();
    expect(targets(after.filter((d) => !originals.has(d.id)))).toEqual(targets(before));
    expect(await svc.stores.views.getSubmission(form, submissionId)).toBeNull();
    expect(mailsOf(submissionId)).toEqual([]);
  });

  it('does nothing new on a redelivered erasure, and retries an erased event with its webhook-id', async () => {
    const { form, submissionId, receivedAt, got } = await notified();
    receiver.handler = (request, response) => echo(request.url === got ? 500 : 200)(request, response);
    const erasure = await erase(form, submissionId, receivedAt);
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, submissionId)).map((d) => d.status)).toContain('retrying'),
    );
    receiver.handler = echo(200);
    const erased = await svc.deliveriesOf(form, submissionId);
    expect(JSON.stringify(erased)).not.toContain(SUBMITTER);

    // Redelivered (the same event), then an erasure of a submission this service never saw: neither fails, so the
    // form's next erasure (after them on its key) is handled.
    await erase(form, submissionId, receivedAt, erasure);
    await erase(form, randomUUID(), receivedAt);
    const later = await svc.submit(form);
    await eventually(() => expect(at(got)).toHaveLength(3));
    await erase(form, later, receivedAt);
    await eventually(() => expect(at(got)).toHaveLength(4));
    expect(bodyOf(at(got)[3])).toMatchObject({ type: 'submission.erased', data: { id: later } });
    expect(await svc.deliveriesOf(form, submissionId)).toEqual(erased);

    svc.clock.now += 5_000;
    await svc.service.runDueAttempts();
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, submissionId)).map((d) => d.status)).not.toContain('retrying'),
    );
    const [, first, , , second] = at(got);
    expect(bodyOf(second)).toMatchObject({ type: 'submission.erased', data: { id: submissionId } });
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
  });

  it('forgets a submission the retention deleted as an erasure does, and tells no endpoint', async () => {
    const { form, submissionId, receivedAt, got, slack, deletions } = await notified();
    const before = await svc.deliveriesOf(form, submissionId);
    await erase(form, submissionId, receivedAt, undefined, true);
    await eventually(async () => expect(await svc.stores.views.getSubmission(form, submissionId)).toBeNull());
    const after = await eventually(async () => {
      const list = await svc.deliveriesOf(form, submissionId);
      expect(JSON.stringify(list)).not.toContain(SUBMITTER);
      return list;
    });
    expect(JSON.stringify(after)).not.toContain(OWNER);
    // The outcomes stay; nothing new was planned.
    expect(after.map((d) => [d.id, d.status, d.attempts])).toEqual(before.map((d) => [d.id, d.status, d.attempts]));
    expect(mailsOf(submissionId)).toEqual([]);
    // A later submission goes through the same partition: by then the expiry was handled, and sent nowhere.
    const later = await svc.submit(form);
    await eventually(() => expect(at(got)).toHaveLength(2));
    expect(bodyOf(at(got)[1])).toMatchObject({ type: 'submission.created', data: { id: later } });
    await eventually(() => expect(at(slack)).toHaveLength(2));
    expect(at(deletions)).toEqual([]);
  });
});
