import { createSmtpMailer, type Mailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import type { NotificationViews, WebhookEndpointStore } from '../src/store/index.ts';
import { recordOf } from './bus-records.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { engineOf, startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const {
  attemptLeaseMs: ATTEMPT_LEASE_MS,
  firstAttemptsInFlight: ATTEMPT_CONCURRENCY,
  sendBacklog: SEND_BACKLOG,
} = DELIVERY_TUNING;

/** `target` with the calls named in `counted` recorded in `calls`. */
function counting<T extends object>(target: T, counted: string[], calls: string[], prefix: string): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (counted.includes(String(prop))) calls.push(`${prefix}.${String(prop)}`);
        return value.apply(t, args);
      };
    },
  });
}

/** `mailer` with its sends held until `open()`; `started` counts the sends begun. */
function gated(mailer: Mailer) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const counts = { started: 0 };
  const held: Mailer = {
    ...mailer,
    send: async (message) => {
      counts.started += 1;
      await gate;
      return mailer.send(message);
    },
  };
  return { mailer: held, open, counts };
}

/** Resolves with whether `promise` settled within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

/**
 * The received handler makes a batch's first attempts with what it read for planning (ADR 57): on a Mongo server
 * every read is a round trip, and first attempts are most of a notifications instance's work.
 */
describe('first attempts of a batch', () => {
  let smtp: SmtpTestServer;
  let svc: WebhookService;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    const mailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@formgate.test>' });
    svc = await startWebhookService({ allowPrivateTargets: true, mailer });
    receiver = await startReceiver();
  });
  /** A form of a new organization that mails two verified addresses. */
  const formMailingTwo = async () => {
    const orgId = `org_${crypto.randomUUID()}`;
    await svc.verify(orgId, 'owner@example.test');
    await svc.verify(orgId, 'sales@example.test');
    return svc.publishForm(orgId, {
      notifications: {
        enabled: true,
        emails: ['owner@example.test', 'sales@example.test'],
        subject: null,
        autoresponse: { enabled: false, text: '' },
      },
    });
  };
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
    await smtp.stop();
  });

  it('send the mails and the webhook without reading the form, the submission or the endpoint again', async () => {
    const form = await formMailingTwo();
    await svc.addWebhook(form, { url: receiver.url, kind: 'standard', events: ['submission.created'] });

    const calls: string[] = [];
    const { deps } = svc;
    const views = counting<NotificationViews>(
      deps.stores.views,
      ['getForm', 'getFormUnscoped', 'getSubmission'],
      calls,
      'store',
    );
    const endpoints = counting<WebhookEndpointStore>(deps.endpoints, ['get', 'listByForm'], calls, 'endpoints');
    const { handler } = engineOf({ ...deps, stores: { ...deps.stores, views }, endpoints });

    // Handed to the handler directly (the service's own groups never see it): two submissions in one batch.
    const events = [svc.submissionEvent(form), svc.submissionEvent(form)];
    const batch = events.map((event, offset) => recordOf(event, 0, offset));
    const mailsBefore = smtp.messages.length;
    await handler(batch);
    await handler.drain();

    expect(smtp.messages.length - mailsBefore).toBe(4);
    expect(receiver.requests.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id).sort()).toEqual(
      events.map((e) => e.submissionId).sort(),
    );
    for (const { submissionId } of events) {
      const log = await svc.deliveriesOf(form, submissionId);
      expect(log.map((d) => [d.channel, d.status, d.attempts]).sort()).toEqual([
        ['email', 'succeeded', 1],
        ['email', 'succeeded', 1],
        ['webhook', 'succeeded', 1],
      ]);
    }
    // The planning's reads, once for the batch; none by the six attempts.
    expect(calls.sort()).toEqual(['endpoints.listByForm', 'store.getFormUnscoped']);
  });

  it('keeps at most ATTEMPT_CONCURRENCY first attempts in flight across batches handled at once', async () => {
    const form = await formMailingTwo();
    const { deps } = svc;
    let inFlight = 0;
    let most = 0;
    // Counted where the mails leave: every first attempt of the batches ends in one send.
    const mailer: typeof deps.mailer = {
      ...deps.mailer,
      send: async (message) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          await new Promise((r) => setTimeout(r, 20));
          return await deps.mailer.send(message);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const { handler } = engineOf({ ...deps, mailer });

    // Four partitions' batches at once (the Kafka subscription consumes partitions concurrently), each of 10
    // submissions × 2 recipients: 80 mails, 20 per batch.
    const batches = [0, 1, 2, 3].map((partition) =>
      Array.from({ length: 10 }, (_, offset) => recordOf(svc.submissionEvent(form), partition, offset)),
    );
    const mailsBefore = smtp.messages.length;
    await Promise.all(batches.map((b) => handler(b)));
    await handler.drain();

    expect(smtp.messages.length - mailsBefore).toBe(80);
    // Without one limit for the handler, each batch would have its 20 in flight: 80 at once.
    expect(most).toBe(ATTEMPT_CONCURRENCY);
  });

  it('returns once the claims are durable; the sends go on after it, and drain waits for them (ADR 64)', async () => {
    const form = await formMailingTwo();
    const { deps } = svc;
    const gate = gated(deps.mailer);
    const { handler } = engineOf({ ...deps, mailer: gate.mailer });
    const event = svc.submissionEvent(form);
    const mailsBefore = smtp.messages.length;

    // No mail can leave, yet the handler returns: the bus may commit the batch.
    expect(await settlesWithin(handler([recordOf(event, 0, 0)]), 5_000)).toBe(true);
    const claimed = await svc.stores.log.listBySubmission(form, event.submissionId);
    expect(claimed.map((d) => [d.status, d.lastClaimed])).toEqual([
      ['pending', 1],
      ['pending', 1],
    ]);
    await vi.waitFor(() => expect(gate.counts.started).toBe(2));

    gate.open();
    await handler.drain();
    expect(smtp.messages.length - mailsBefore).toBe(2);
    const log = await svc.deliveriesOf(form, event.submissionId);
    expect(log.map((d) => [d.status, d.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
  });

  it('claims no more while SEND_BACKLOG deliveries are handed on and unsent', async () => {
    const form = await formMailingTwo();
    const { deps } = svc;
    const gate = gated(deps.mailer);
    const { handler } = engineOf({ ...deps, mailer: gate.mailer });
    // Two recipients each: a first batch of exactly SEND_BACKLOG deliveries, then one more submission.
    const full = Array.from({ length: SEND_BACKLOG / 2 }, (_, offset) =>
      recordOf(svc.submissionEvent(form), 0, offset),
    );
    const next = svc.submissionEvent(form);
    const mailsBefore = smtp.messages.length;

    expect(await settlesWithin(handler(full), 20_000)).toBe(true);
    const waiting = handler([recordOf(next, 0, SEND_BACKLOG / 2)]);
    expect(await settlesWithin(waiting, 300)).toBe(false);
    // Not claimed while it waits: a crash now leaves it to the redelivered batch, not to the lease.
    expect(await svc.stores.log.listBySubmission(form, next.submissionId)).toEqual([]);

    gate.open();
    await waiting;
    await handler.drain();
    expect(smtp.messages.length - mailsBefore).toBe(SEND_BACKLOG + 2);
  });

  it('leaves a send not started within half the lease to the retry worker, which makes it once', async () => {
    const form = await formMailingTwo();
    const { deps } = svc;
    const gate = gated(deps.mailer);
    const { handler } = engineOf({ ...deps, mailer: gate.mailer });
    // 60 mails: ATTEMPT_CONCURRENCY of them start and wait at the gate, the rest wait for a slot.
    const events = Array.from({ length: 30 }, () => svc.submissionEvent(form));
    const mailsBefore = smtp.messages.length;
    await handler(events.map((e, offset) => recordOf(e, 0, offset)));
    await vi.waitFor(() => expect(gate.counts.started).toBe(ATTEMPT_CONCURRENCY));

    // Half the lease passes with the SMTP server hung: the waiting sends must not start now, since the retry
    // worker's attempt 2 would race them once the lease ends.
    svc.clock.now += ATTEMPT_LEASE_MS / 2 + 1_000;
    gate.open();
    await handler.drain();
    expect(smtp.messages.length - mailsBefore).toBe(ATTEMPT_CONCURRENCY);

    svc.clock.now += ATTEMPT_LEASE_MS;
    await svc.service.runDueAttempts();
    const sent = smtp.messages.slice(mailsBefore);
    expect(sent).toHaveLength(60);
    // Each (submission, recipient) once: the deterministic Message-ID names the pair.
    expect(new Set(sent.map((m) => m.raw.match(/^Message-ID: *(.*)$/im)?.[1])).size).toBe(60);
    for (const { submissionId } of events) {
      const log = await svc.deliveriesOf(form, submissionId);
      expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    }
  });
});
