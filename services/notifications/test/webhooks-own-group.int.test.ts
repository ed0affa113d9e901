import { Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { createSmtpMailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryChannels } from '../src/channels/index.ts';
import { createDeliveryRunner } from '../src/deliveries/delivery-runner.ts';
import { ALL_CHANNEL_KINDS, createSubmissionReceivedHandler } from '../src/deliveries/submission-received.handler.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

/**
 * Webhooks in their own consumer group (ADR 54): a stalled SMTP server holds the emails' group, never the webhooks';
 * and a group re-reading submissions already delivered (an upgrade, a redelivery) sends nothing twice.
 */
describe('webhooks in their own consumer group, beside a stalled SMTP server', () => {
  let smtp: SmtpTestServer;
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  /** While set, the SMTP server holds every DATA without answering. */
  let stall: { promise: Promise<void>; resolve: () => void } | null = null;

  beforeAll(async () => {
    smtp = await startSmtpTestServer({ beforeDataReply: () => stall?.promise });
    const mailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@formgate.test>' });
    svc = await startWebhookService({ allowPrivateTargets: true, mailer });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    stall?.resolve();
    await receiver.close();
    await svc.stop();
    await smtp.stop();
  });

  it('delivers webhooks within seconds while mail is stuck in DATA, and the mail once SMTP answers', async () => {
    let release = () => {};
    stall = { promise: new Promise<void>((r) => (release = r)), resolve: () => release() };
    const orgId = `org_${crypto.randomUUID()}`;
    await svc.verify(orgId, 'owner@example.test');
    const form = await svc.publishForm(orgId, {
      notifications: {
        enabled: true,
        emails: ['owner@example.test'],
        subject: null,
        autoresponse: { enabled: false, text: '' },
      },
    });
    await svc.addWebhook(form, { url: receiver.url, kind: 'standard', events: ['submission.created'] });

    const first = await svc.submit(form);
    await eventually(() => expect(receiver.requests).toHaveLength(1), 3_000);
    // The emails' group is still in its first batch (the SMTP server has not answered DATA): a later submission's
    // webhook does not wait for it.
    const second = await svc.submit(form);
    await eventually(() => expect(receiver.requests).toHaveLength(2), 3_000);
    expect(smtp.messages).toHaveLength(0);
    const mails = (await svc.deliveriesOf(form, first)).filter((d) => d.channel === 'email');
    expect(mails.map((d) => d.status)).toEqual(['pending']);

    stall.resolve();
    stall = null;
    await eventually(async () => {
      for (const id of [first, second]) {
        const log = await svc.deliveriesOf(form, id);
        expect(log.map((d) => [d.channel, d.status, d.attempts]).sort()).toEqual([
          ['email', 'succeeded', 1],
          ['webhook', 'succeeded', 1],
        ]);
      }
    }, 10_000);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual([`n ${first}`, `n ${second}`].sort());
  });

  it('sends nothing twice when a group reads already delivered submissions from the beginning (upgrade, redelivery)', async () => {
    const before = { hooks: receiver.requests.length, mails: smtp.messages.length };
    const { deps } = svc;
    const channels = createDeliveryChannels({ ...deps, webhookTimeoutMs: 2_000 });
    const runner = createDeliveryRunner({ ...deps, channels });
    let batches = 0;
    const handler = createSubmissionReceivedHandler({ ...deps, runner, channels }, ALL_CHANNEL_KINDS);
    const replaying = await svc.bus.subscribe({
      group: 'notifications.replay-test',
      topic: Topics.ingestSubmission,
      fromBeginning: true,
      handler: async (batch) => {
        await handler(batch);
        await handler.drain();
        batches += batch.length;
      },
    });
    try {
      // Every submission of the log handled again (the two of the test above, at least).
      await eventually(() => expect(batches).toBeGreaterThanOrEqual(2), 5_000);
      expect({ hooks: receiver.requests.length, mails: smtp.messages.length }).toEqual(before);
    } finally {
      await replaying.stop();
    }
  });
});
