import type { Form } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { createSmtpMailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetryWorker } from '../src/deliveries/retry-worker.ts';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import type { DeliveryLog } from '../src/store/index.ts';
import { recordOf } from './bus-records.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { engineOf, startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const ATTEMPT_LEASE_MS = DELIVERY_TUNING.attemptLeaseMs;

/** `store` whose `method` fails its first `failures` calls as an unreachable store does; `failed` counts them. */
function failingFirst(store: DeliveryLog, method: keyof DeliveryLog, failures: number) {
  const counts = { failed: 0 };
  const failing = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== method || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (counts.failed < failures) {
          counts.failed += 1;
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: failing, counts };
}

/** `store` whose `methods` fail as an unreachable store's while `outage.down`. */
function withOutage(store: DeliveryLog, methods: (keyof DeliveryLog)[]) {
  const outage = { down: false };
  const failing = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (!methods.includes(prop as keyof DeliveryLog) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (outage.down) throw Object.assign(new Error('server selection timed out'), { name: 'MongoNetworkError' });
        return value.apply(target, args);
      };
    },
  });
  return { store: failing, outage };
}

/**
 * Issue 28: a store failure between the send and its recorded outcome duplicated the send once the lease ended.
 * The holder now writes the outcome until the store takes it (ADR 66): one send, the outcome recorded, and the retry
 * worker after the lease sends nothing more.
 */
describe('outcomes the store did not take at first', () => {
  let smtp: SmtpTestServer;
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  /** Addresses the SMTP server refuses for now (451: try again later). */
  const refusing = new Set<string>();

  beforeAll(async () => {
    smtp = await startSmtpTestServer({ refuseRecipient: (address) => (refusing.has(address) ? 451 : false) });
    const mailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@formgate.test>' });
    svc = await startWebhookService({ allowPrivateTargets: true, mailer });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
    await smtp.stop();
  });

  /** A form of a new organization that mails `address` (verified) and posts to the receiver. */
  const formOf = async (address: string) => {
    const orgId = `org_${crypto.randomUUID()}`;
    await svc.verify(orgId, address);
    const form = await svc.publishForm(orgId, {
      notifications: { enabled: true, emails: [address], subject: null, autoresponse: { enabled: false, text: '' } },
    });
    await svc.addWebhook(form, { url: receiver.url, kind: 'standard', events: ['submission.created'] });
    return form;
  };
  /** What reached the SMTP server and the receiver for `submissionId`. */
  const sent = (submissionId: string) => ({
    email: smtp.messages.filter((m) => m.raw.includes(submissionId)).length,
    webhook: receiver.requests.filter((r) => r.body.includes(submissionId)).length,
  });
  /** The stores of another instance, its delivery log `log`. */
  const storesOn = (log: DeliveryLog) => ({ ...svc.deps.stores, log });
  /** The engine of another instance's making, on `log`. */
  const engineOn = (log: DeliveryLog) => engineOf({ ...svc.deps, stores: storesOn(log) });
  /** The service's own retry worker once the lease has passed, twice: it must find nothing to send again. */
  const afterTheLease = async (form: Form, submissionId: string) => {
    const before = sent(submissionId);
    svc.clock.now += ATTEMPT_LEASE_MS + 1_000;
    await svc.service.runDueAttempts();
    await svc.service.runDueAttempts();
    expect(sent(submissionId)).toEqual(before);
    expect(await svc.stores.log.listOpenBatches(new Date(svc.clock.now).toISOString(), 100)).toEqual([]);
    return svc.deliveriesOf(form, submissionId);
  };

  it("a batch's first attempts: the group commit is made again until recorded, each send made once", async () => {
    const form = await formOf('batch@example.test');
    const { store, counts } = failingFirst(svc.stores.log, 'recordFirstAttempt', 3);
    const { handler } = engineOn(store);
    const event = svc.submissionEvent(form);

    await handler([recordOf(event, 0, 0)]);
    await handler.drain();

    expect(counts.failed).toBe(3);
    expect(sent(event.submissionId)).toEqual({ email: 1, webhook: 1 });
    const log = await afterTheLease(form, event.submissionId);
    expect(log.map((d) => [d.channel, d.status, d.attempts]).sort()).toEqual([
      ['email', 'succeeded', 1],
      ['webhook', 'succeeded', 1],
    ]);
  });

  it('an outage longer than the lease: no other instance takes the claim over before its holder records', async () => {
    const form = await formOf('outage@example.test');
    const { store, outage } = withOutage(svc.stores.log, ['recordFirstAttempt', 'listDue', 'listOpenBatches']);
    const { handler } = engineOn(store);
    // Another instance on the same store, whose passes fail while it is down.
    const other = createRetryWorker({ ...svc.deps, stores: storesOn(store), runner: engineOn(store).runner });
    const event = svc.submissionEvent(form);

    outage.down = true;
    await handler([recordOf(event, 0, 0)]);
    await eventually(() => expect(sent(event.submissionId)).toEqual({ email: 1, webhook: 1 }));
    svc.clock.now += ATTEMPT_LEASE_MS + 1_000;
    await other.kick();
    outage.down = false;
    // The batch's lease has ended and the store answers again, but the holder has not written yet.
    await other.kick();
    expect(sent(event.submissionId)).toEqual({ email: 1, webhook: 1 });

    await handler.drain();
    svc.clock.now += DELIVERY_TUNING.takeoverGraceMs;
    await other.kick();
    const log = await afterTheLease(form, event.submissionId);
    expect(log.map((d) => [d.status, d.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
  });

  it.each(['email', 'webhook'] as const)(
    "a retry worker's attempt of a %s: its outcome recorded at last, the send made once",
    async (channel) => {
      const address = `retry-${channel}@example.test`;
      const form = await formOf(address);
      // Attempt 1 (the service's own consumer) is answered "try again later" on the channel under test.
      if (channel === 'email') refusing.add(address);
      else receiver.handler = (_request, response) => response.writeHead(503).end();
      const submissionId = await svc.submit(form);
      await eventually(async () => {
        const log = await svc.deliveriesOf(form, submissionId);
        expect(log.find((d) => d.channel === channel)).toMatchObject({ status: 'retrying', attempts: 1 });
        expect(log.every((d) => d.attempts === 1)).toBe(true);
      });
      refusing.delete(address);
      receiver.handler = (_request, response) => response.end('ok');
      const before = sent(submissionId);

      // Attempt 2 is due; another instance's worker makes it, and its store fails the first three records.
      svc.clock.now += 3_600_000;
      const { store, counts } = failingFirst(svc.stores.log, 'recordOutcome', 3);
      const worker = createRetryWorker({ ...svc.deps, stores: storesOn(store), runner: engineOn(store).runner });
      await worker.kick();

      expect(counts.failed).toBe(3);
      expect(sent(submissionId)[channel]).toBe(before[channel] + 1);
      const log = await afterTheLease(form, submissionId);
      expect(log.find((d) => d.channel === channel)).toMatchObject({ status: 'succeeded', attempts: 2 });
    },
  );
});
