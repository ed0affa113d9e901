import { randomUUID } from 'node:crypto';
import { encodeEvent, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedRequest, startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const bodyOf = (r: ReceivedRequest) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
const settle = () => new Promise((r) => setTimeout(r, 400));

describe('a released submission (issue 13) is notified once, as if it had just arrived not held', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
  });
  const at = (path: string) => receiver.requests.filter((r) => r.url === path);
  const mailsOf = (submissionId: string) => svc.mails().filter((m) => JSON.stringify(m).includes(submissionId));

  const setUp = async () => {
    const orgId = `org_${randomUUID()}`;
    const to = `owner-${randomUUID()}@example.com`;
    await svc.verify(orgId, to);
    const form = await svc.publishForm(orgId, {
      notifications: { enabled: true, emails: [to], subject: null, autoresponse: { enabled: false, text: '' } },
    });
    const [created, spam] = [`/${randomUUID()}`, `/${randomUUID()}`];
    await svc.addWebhook(form, { url: `${receiver.url}${created}`, events: ['submission.created'] });
    await svc.addWebhook(form, { url: `${receiver.url}${spam}`, events: ['submission.spam'] });
    return { form, to, created, spam };
  };

  it('mails and sends submission.created on release, nothing while held, nothing more when redelivered', async () => {
    const { form, to, created, spam } = await setUp();
    const meta = { subject: 'Quote request', cc: [] };
    const heldId = await svc.submit(form, { held: true, meta });
    await settle();
    expect(at(created)).toHaveLength(0);
    expect(await svc.deliveriesOf(form, heldId)).toEqual([]);

    const eventId = await svc.release(form, heldId, { meta });
    await eventually(() => expect(at(created)).toHaveLength(1), 3_000);
    expect(bodyOf(at(created)[0] as ReceivedRequest)).toMatchObject({
      type: 'submission.created',
      data: { id: heldId, formId: form.id, spam: false },
    });
    await eventually(() => expect(mailsOf(heldId)).toHaveLength(1));
    expect(JSON.stringify(mailsOf(heldId)[0])).toContain(to);
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, heldId)).map((d) => [d.channel, d.status]).sort()).toEqual([
        ['email', 'succeeded'],
        ['webhook', 'succeeded'],
      ]),
    );

    // The same release again (a redelivery), and a second release event for it (two forms instances racing).
    await svc.release(form, heldId, { meta }, eventId);
    await svc.release(form, heldId, { meta });
    await settle();
    expect(at(created)).toHaveLength(1);
    expect(at(spam)).toHaveLength(0);
    expect(mailsOf(heldId)).toHaveLength(1);
    expect(await svc.deliveriesOf(form, heldId)).toHaveLength(2);
  });

  it('sends a released spam submission to submission.spam subscribers only, and mails nobody', async () => {
    const { form, created, spam } = await setUp();
    const verdict = {
      isSpam: true,
      reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
    };
    const heldId = await svc.submit(form, { held: true, spam: verdict });
    await svc.release(form, heldId, { spam: verdict });
    await eventually(() => expect(at(spam)).toHaveLength(1), 3_000);
    expect(bodyOf(at(spam)[0] as ReceivedRequest)).toMatchObject({ type: 'submission.spam', data: { id: heldId } });
    await settle();
    expect(at(created)).toHaveLength(0);
    expect(mailsOf(heldId)).toHaveLength(0);
  });

  it('notifies a submission released from spam (a not-spam mark carrying it) once: mail and submission.created', async () => {
    const { form, to, created, spam } = await setUp();
    const verdict = {
      isSpam: true,
      reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
    };
    const meta = { subject: 'Was spam', cc: [] };
    const id = await svc.submit(form, { spam: verdict, meta });
    await eventually(() => expect(at(spam)).toHaveLength(1), 3_000);
    expect(mailsOf(id)).toEqual([]);

    const now = new Date().toISOString();
    const markedNotSpam = (eventId: string, carry: boolean) =>
      encodeEvent(Topics.formsSubmission, {
        id: eventId,
        type: 'submission.spam-marked',
        version: 1,
        occurredAt: now,
        data: {
          submissionId: id,
          formId: form.id,
          orgId: form.orgId,
          receivedAt: now,
          wasSpam: true,
          spam: false,
          ...(carry
            ? {
                submission: {
                  submissionId: id,
                  formId: form.id,
                  orgId: form.orgId,
                  receivedAt: now,
                  fields: [{ name: 'message', value: 'not <b>spam</b> after all' }],
                  files: [],
                  meta,
                  spam: { isSpam: false, reasons: verdict.reasons },
                  held: false as const,
                },
              }
            : {}),
        },
      });
    const release = markedNotSpam(randomUUID(), true);
    await svc.bus.publish(Topics.formsSubmission, [{ key: form.id, value: release }]);
    await eventually(() => expect(at(created)).toHaveLength(1), 3_000);
    expect(bodyOf(at(created)[0] as ReceivedRequest)).toMatchObject({
      type: 'submission.created',
      data: { id, formId: form.id, spam: false },
    });
    await eventually(() => expect(mailsOf(id)).toHaveLength(1));
    expect(JSON.stringify(mailsOf(id)[0])).toContain(to);

    // The same event redelivered, a second release event (a racing mark), later marks without the submission.
    await svc.bus.publish(Topics.formsSubmission, [{ key: form.id, value: release }]);
    await svc.bus.publish(Topics.formsSubmission, [{ key: form.id, value: markedNotSpam(randomUUID(), true) }]);
    await svc.change(form, id, { spam: true });
    await svc.bus.publish(Topics.formsSubmission, [{ key: form.id, value: markedNotSpam(randomUUID(), false) }]);
    await settle();
    expect(at(created)).toHaveLength(1);
    expect(mailsOf(id)).toHaveLength(1);
    // One email; webhooks: submission.spam at receipt and at the later mark as spam, submission.created once.
    expect((await svc.deliveriesOf(form, id)).map((d) => d.channel).sort()).toEqual([
      'email',
      'webhook',
      'webhook',
      'webhook',
    ]);
    expect(at(spam)).toHaveLength(2);
  });
});
