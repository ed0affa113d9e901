import { randomUUID } from 'node:crypto';
import type { BusMessage, Subscription } from '@formgate/bus';
import { DEFAULT_FORM_NOTIFICATIONS, decodeEvent, type Form, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { createMailFiles } from '@formgate/mail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import { type DeliveryLog, ERASED } from '../src/store/index.ts';
import { recordOf } from './bus-records.ts';
import { type ReceivedRequest, startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { engineOf, startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const SUBMITTER = 'kept.nowhere@example.com';
const OWNER = 'owner@example.com';
const NO_STORE = { storeContent: false } as const;

/** A receiver's answer that echoes the fields it was sent (the delivery log keeps the start of a response). */
const echo = (status: number) => (request: ReceivedRequest, response: Parameters<WebhookReceiver['handler']>[1]) => {
  response.statusCode = status;
  response.end(JSON.stringify((JSON.parse(request.body) as { data?: { fields?: unknown } }).data?.fields ?? null));
};

describe('no-store forms (issue 31): notifications settle a submission once its deliveries are done', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  let follower: Subscription;
  const published: BusMessage[] = [];
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true, keptMail: createMailFiles });
    receiver = await startReceiver();
    receiver.handler = echo(200);
    follower = await svc.bus.replay(Topics.notificationsDelivery, (m) => void published.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await receiver.close();
    await svc.stop();
  });

  const path = () => `/${randomUUID()}`;
  const at = (p: string) => receiver.requests.filter((r) => r.url === p);
  /** The `submission.settled` events of the submission on `notifications.delivery`, with their keys. */
  const settledOf = (submissionId: string) =>
    published.flatMap((m) => {
      const event = decodeEvent(Topics.notificationsDelivery, m.value);
      return event.type === 'submission.settled' && event.data.submissionId === submissionId
        ? [{ key: m.key, event }]
        : [];
    });
  /** Waits for the settling to be over: published, then dropped, then its record closed (the last step). */
  const settled = (submissionId: string) =>
    eventually(async () => {
      expect(settledOf(submissionId)).toHaveLength(1);
      expect((await svc.stores.settlements.get(submissionId))?.settledAt).toEqual(expect.any(String));
    });
  const mailsOf = (submissionId: string) => svc.mails().filter((m) => m.subject.endsWith(submissionId));
  const copyOf = (form: Form, submissionId: string) => svc.stores.views.getSubmission(form, submissionId);
  /** The sweep's next look at what was planned now, after which the service has had every chance to settle. */
  const sweepLater = async () => {
    svc.clock.now += DELIVERY_TUNING.settleGraceMs + 1_000;
    await svc.service.runDueAttempts();
    await svc.service.settleSubmissions();
  };

  /** A form of a new organization mailing a verified address, autoresponding, and posting to one endpoint. */
  async function formWithEmailAndWebhook(settings: Partial<Form['settings']> = NO_STORE) {
    const orgId = `org_${randomUUID()}`;
    await svc.verify(orgId, OWNER);
    const form = await svc.publishForm(orgId, {
      ...settings,
      notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: [OWNER], autoresponse: { enabled: true, text: 'Hi' } },
    });
    const hook = path();
    await svc.addWebhook(form, { url: `${receiver.url}${hook}`, events: ['submission.created', 'submission.spam'] });
    return { form, hook };
  }
  const statuses = async (form: Form, submissionId: string) =>
    (await svc.deliveriesOf(form, submissionId)).map((d) => d.status).sort();

  it('publishes submission.settled once both deliveries succeeded, drops the content and tells no endpoint', async () => {
    const { form, hook } = await formWithEmailAndWebhook();
    const fields = [{ name: 'email', value: SUBMITTER }];
    const submissionId = await svc.submit(form, { fields });

    await settled(submissionId);
    const [{ key, event }] = settledOf(submissionId) as [ReturnType<typeof settledOf>[number]];
    expect(key).toBe(form.orgId);
    expect(event.id).toBe(svc.deps.ids.derived('submission-settled', submissionId));
    const log = await svc.deliveriesOf(form, submissionId);
    // After the last delivery became final: when it did.
    expect(event.data).toEqual({
      submissionId,
      formId: form.id,
      orgId: form.orgId,
      settledAt: log
        .map((d) => d.updatedAt)
        .sort()
        .at(-1),
    });

    // The outcomes stay; no address, no response text (the endpoint echoed the fields).
    expect(log.map((d) => [d.channel, d.purpose, d.status]).sort()).toEqual([
      ['email', 'autoresponse', 'succeeded'],
      ['email', 'notification', 'succeeded'],
      ['webhook', 'standard', 'succeeded'],
    ]);
    expect(JSON.stringify(log)).not.toContain(SUBMITTER);
    expect(JSON.stringify(log)).not.toContain(OWNER);
    expect(log.map((d) => d.lastResponse?.text)).toEqual([ERASED, ERASED, ERASED]);
    expect(log.filter((d) => d.channel === 'email').map((d) => d.target)).toEqual([ERASED, ERASED]);
    expect(await copyOf(form, submissionId)).toBeNull();
    expect(mailsOf(submissionId)).toEqual([]);

    // Nothing more to anyone, and no second event, however long the service runs.
    await sweepLater();
    await sweepLater();
    expect(at(hook)).toHaveLength(1);
    expect(JSON.parse(at(hook)[0]?.body ?? '{}')).toMatchObject({ type: 'submission.created' });
    expect(settledOf(submissionId)).toHaveLength(1);
  });

  it('waits while a webhook retries, and settles once it succeeds or fails for good', async () => {
    // Two forms: a 410 disables its endpoint, which would fail the other's retry.
    const [taken, gone] = [await formWithEmailAndWebhook(), await formWithEmailAndWebhook()];
    const failing = new Set([taken.hook, gone.hook]);
    receiver.handler = (request, response) => echo(failing.has(request.url) ? 503 : 200)(request, response);
    const submitted = [
      { ...taken, id: await svc.submit(taken.form), outcome: 'succeeded' },
      { ...gone, id: await svc.submit(gone.form), outcome: 'failed' },
    ];
    for (const { form, id } of submitted) {
      await eventually(async () => expect(await statuses(form, id)).toEqual(['retrying', 'succeeded']));
    }
    // Attempt 2, a minute later, fails too; the sweep looks and leaves them.
    await sweepLater();
    for (const { form, hook, id } of submitted) {
      await eventually(() => expect(at(hook)).toHaveLength(2));
      expect(await statuses(form, id)).toEqual(['retrying', 'succeeded']);
      expect(settledOf(id)).toEqual([]);
      expect(await copyOf(form, id)).not.toBeNull();
      expect(mailsOf(id)).toHaveLength(1);
    }

    // Attempt 3, 5 minutes on: one is taken, the other's endpoint is gone (410: failed for good).
    receiver.handler = (request, response) => echo(request.url === gone.hook ? 410 : 200)(request, response);
    svc.clock.now += 6 * 60_000;
    await svc.service.runDueAttempts();
    for (const { form, id, outcome } of submitted) {
      await settled(id);
      expect((await svc.deliveriesOf(form, id)).find((d) => d.channel === 'webhook')).toMatchObject({
        status: outcome,
        attempts: 3,
        lastResponse: { text: ERASED },
      });
      expect(await copyOf(form, id)).toBeNull();
      expect(mailsOf(id)).toEqual([]);
    }
    receiver.handler = echo(200);
  });

  it('waits for the consumer batch of its first attempts to close: the batch publishes their successes', async () => {
    const { form } = await formWithEmailAndWebhook();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { log } = svc.deps.stores;
    const held: DeliveryLog = { ...log, closeBatch: async (id) => gate.then(() => log.closeBatch(id)) };
    const engine = engineOf({ ...svc.deps, stores: { ...svc.deps.stores, log: held } });
    const event = svc.submissionEvent(form);
    await engine.handler([recordOf(event, 0, 0)]);
    const id = event.submissionId;

    await eventually(async () => expect(await statuses(form, id)).toEqual(['succeeded', 'succeeded']));
    expect(await engine.runner.settler.settle(id)).toBe(false);
    await sweepLater();
    expect(settledOf(id)).toEqual([]);
    expect(await copyOf(form, id)).not.toBeNull();

    open();
    await engine.handler.drain();
    await settled(id);
    expect(await copyOf(form, id)).toBeNull();
  });

  it('settles a submission with nothing to deliver at once', async () => {
    const form = await svc.publishForm(`org_${randomUUID()}`, NO_STORE);
    const submissionId = await svc.submit(form);
    await settled(submissionId);
    expect(settledOf(submissionId)[0]?.event.data).toMatchObject({ formId: form.id, orgId: form.orgId });
    expect(await svc.deliveriesOf(form, submissionId)).toEqual([]);
  });

  it('settles a spam submission once its deliveries are done; leaves a held one whole until released', async () => {
    const { form, hook } = await formWithEmailAndWebhook();
    const spam = await svc.submit(form, { spam: { isSpam: true, reasons: [] } });
    const held = await svc.submit(form, { held: true });
    // A later submission of the form settles: the ones before it on its key were handled by then.
    const later = await svc.submit(form);
    await settled(later);
    // The spam one went to the endpoint as submission.spam, then was settled like any other.
    await settled(spam);
    expect(await copyOf(form, spam)).toBeNull();
    const [spamHook] = await svc.deliveriesOf(form, spam);
    expect(spamHook).toMatchObject({ status: 'succeeded', channel: 'webhook' });
    expect(spamHook?.lastResponse?.text).not.toContain('Hello');
    await eventually(() => expect(at(hook)).toHaveLength(2));
    await sweepLater();
    expect(settledOf(held)).toEqual([]);

    // Released (issue 13): delivered as received, then settled.
    await svc.release(form, held);
    await settled(held);
    expect(await copyOf(form, held)).toBeNull();
    expect(JSON.stringify(await svc.deliveriesOf(form, held))).not.toContain(OWNER);
  });

  it('never settles a submission of a form that stores content', async () => {
    const { form } = await formWithEmailAndWebhook({});
    const submissionId = await svc.submit(form, { fields: [{ name: 'email', value: SUBMITTER }] });
    await eventually(async () =>
      expect(await statuses(form, submissionId)).toEqual(['succeeded', 'succeeded', 'succeeded']),
    );
    await sweepLater();
    expect(settledOf(submissionId)).toEqual([]);
    expect(await copyOf(form, submissionId)).not.toBeNull();
    expect(
      mailsOf(submissionId)
        .map((m) => m.to)
        .sort(),
    ).toEqual([SUBMITTER, OWNER]);
    expect(JSON.stringify(await svc.deliveriesOf(form, submissionId))).toContain(SUBMITTER);
  });
});
