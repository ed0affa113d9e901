import { randomBytes, randomUUID } from 'node:crypto';
import type { EventBus } from '@formgate/bus';
import { createKafkaBus } from '@formgate/bus/kafka';
import { DEFAULT_FORM_SETTINGS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { createIdentityCodec, createLogger, systemIds } from '@formgate/kit';
import { eventually, loadTestRunConfig } from '@formgate/kit/testing';
import { createSmtpMailer, type Mailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { useTestMongo } from '@formgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationsService, type NotificationsService } from '../src/create-service.ts';
import type { Composer } from '../src/email/composer.ts';
import type { DeliveryLog } from '../src/store/index.ts';
import {
  createMongoNotificationStores,
  createMongoRecipientStore,
  createMongoWebhookEndpointStore,
} from '../src/store/mongo/index.ts';
import { migratedMongo } from './notifications-db.ts';

const brokers = (loadTestRunConfig().KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS must be set (the e2e global setup provides it)');
/** This file's namespace on the shared broker: other e2e files run at the same time (ADR 53). */
const topicPrefix = `e2e-notify-${randomUUID().slice(0, 8)}.`;

// biome-ignore lint/correctness/useHookAtTopLevel: a vitest lifecycle helper, not a React hook (react is a dependency here)
const mongo = useTestMongo();

const composer: Composer = {
  notification: ({ submission, to }) => ({ to, subject: `n ${submission.submissionId}`, text: 'x' }),
  autoresponse: ({ submission, to }) => ({ to, subject: `a ${submission.submissionId}`, text: 'x' }),
};

const RECIPIENTS = ['one@example.com', 'two@example.com'];

interface Instance {
  bus: EventBus;
  log: DeliveryLog;
  mailer: Mailer;
  service: NotificationsService;
  /** SMTP acceptance → outcome recorded, per attempt (ms): the window in which a crash duplicates a mail. */
  windows: number[];
}

describe('two notifications instances on the real broker and FerretDB', () => {
  let smtp: SmtpTestServer;
  let publisher: EventBus;
  const instances: Instance[] = [];
  let now = Date.now();
  const refusals = new Map<string, number>();
  const orgId = `org_${randomUUID()}`;
  const linkSecret = randomBytes(32).toString('base64url');

  const startInstance = async (name: string): Promise<Instance> => {
    const bus = createKafkaBus({ brokers, topicPrefix, clientId: `notify-e2e-${name}` });
    const stores = createMongoNotificationStores(await migratedMongo(mongo()));
    const inner = stores.log;
    const smtpMailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@formgate.test>' });
    const accepted = new Map<string, number>();
    const windows: number[] = [];
    const mailer: Mailer = {
      async send(message) {
        const result = await smtpMailer.send(message);
        accepted.set(`${message.to} ${message.subject}`, performance.now());
        return result;
      },
      close: () => smtpMailer.close(),
    };
    const log: DeliveryLog = {
      ...inner,
      async recordOutcome(id, attempt, outcome) {
        const after = await inner.recordOutcome(id, attempt, outcome);
        const recordedAt = performance.now();
        const sentAt = after && accepted.get(`${after.target} n ${after.submissionId}`);
        if (outcome.status === 'succeeded' && sentAt) windows.push(recordedAt - sentAt);
        return after;
      },
      // A consumer batch's first attempts, gathered by the store into one write with the others under way.
      async recordFirstAttempt(batch, result) {
        const d = await inner.recordFirstAttempt(batch, result);
        const recordedAt = performance.now();
        const sentAt = accepted.get(`${d.target} n ${d.submissionId}`);
        if (d.status === 'succeeded' && sentAt) windows.push(recordedAt - sentAt);
        return d;
      },
    };
    const service = createNotificationsService({
      stores: { ...stores, log },
      bus,
      mailer,
      clock: { now: () => new Date(now) },
      ids: systemIds,
      logger: createLogger({ level: 'silent', name }),
      identity: createIdentityCodec(randomBytes(32).toString('base64url')),
      compose: composer,
      recipients: createMongoRecipientStore(mongo()),
      endpoints: createMongoWebhookEndpointStore(mongo()),
      allowPrivateTargets: false,
      linkSecret,
      publicUrl: 'http://formgate.test',
      retryIntervalMs: 3_600_000,
      random: () => 0.5,
    });
    await service.start();
    return { bus, log, mailer, service, windows };
  };

  beforeAll(async () => {
    // The organization's verified addresses, in the store both instances read.
    const recipients = createMongoRecipientStore(await migratedMongo(mongo()));
    for (const email of RECIPIENTS) {
      const at = new Date();
      await recipients.add({ orgId }, { id: randomUUID(), email, createdAt: at, verifiedAt: at }, { limit: 50 });
    }
    smtp = await startSmtpTestServer({ refuseRecipient: (a) => refusals.get(a) ?? false });
    publisher = createKafkaBus({ brokers, topicPrefix, clientId: 'notify-e2e-publisher' });
    instances.push(await startInstance('a'), await startInstance('b'));
  }, 120_000);
  afterAll(async () => {
    for (const i of instances) {
      await i.service.stop();
      await i.mailer.close();
      await i.bus.close();
    }
    await publisher?.close();
    await smtp?.stop();
  }, 120_000);

  // Many forms (keys), so both instances' partitions get submissions whatever the hashing: with 6, all landed on
  // one instance's partitions in about 3 % of runs, and the other never sent anything.
  const forms: Form[] = Array.from({ length: 24 }, (_, i) => ({
    id: `form_${randomUUID()}`,
    orgId,
    name: `Form ${i}`,
    slug: `form-${i}-${randomUUID()}`,
    key: randomUUID(),
    settings: {
      ...DEFAULT_FORM_SETTINGS,
      notifications: { ...DEFAULT_FORM_SETTINGS.notifications, emails: RECIPIENTS },
    },
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    version: 1,
  }));

  let nextForm = 0;
  const submit = async (count: number) => {
    const ids: string[] = [];
    const messages = Array.from({ length: count }, () => {
      const form = forms[nextForm++ % forms.length] as Form;
      const submissionId = randomUUID();
      ids.push(submissionId);
      return {
        key: form.id,
        value: encodeEvent(Topics.ingestSubmission, {
          id: randomUUID(),
          type: 'submission.received',
          version: 1,
          occurredAt: new Date(now).toISOString(),
          data: {
            submissionId,
            formId: form.id,
            orgId,
            receivedAt: new Date(now).toISOString(),
            fields: [{ name: 'message', value: 'hi' }],
            files: [],
            meta: {},
            spam: { isSpam: false, reasons: [] },
            held: false,
          },
        }),
      };
    });
    await publisher.publish(Topics.ingestSubmission, messages);
    return ids;
  };
  const mailsOf = (ids: string[]) => smtp.messages.filter((m) => ids.some((id) => m.subject.endsWith(id)));

  it('shares the submissions: every recipient of every submission gets exactly one mail', async () => {
    await publisher.publish(
      Topics.formsForm,
      forms.map((form) => ({
        key: form.id,
        value: encodeEvent(Topics.formsForm, {
          id: randomUUID(),
          type: 'form.upserted',
          version: 1,
          occurredAt: form.updatedAt,
          data: form,
        }),
      })),
    );
    // Until both members have joined the group and hold partitions, one instance may take everything: keep
    // submitting a few each second until both have sent something (at most 60 s).
    const ids: string[] = [];
    const deadline = Date.now() + 60_000;
    while (!instances.every((i) => i.windows.length > 0) && Date.now() < deadline) {
      ids.push(...(await submit(6)));
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(instances.map((i) => i.windows.length > 0)).toEqual([true, true]);
    ids.push(...(await submit(60)));
    await eventually(() => expect(mailsOf(ids)).toHaveLength(ids.length * RECIPIENTS.length), 90_000);
    const keys = mailsOf(ids).map((m) => `${m.to.join()} ${m.subject}`);
    expect(new Set(keys).size).toBe(keys.length);
    const log = instances[0]?.log as DeliveryLog;
    for (const id of ids) {
      const entries = await log.listBySubmission({ orgId }, id);
      expect(entries.map((d) => [d.status, d.attempts])).toEqual([
        ['succeeded', 1],
        ['succeeded', 1],
      ]);
    }
    const windows = instances.flatMap((i) => i.windows).sort((a, b) => a - b);
    const pct = (p: number) => windows[Math.min(windows.length - 1, Math.floor(windows.length * p))]?.toFixed(1);
    // A measurement, not an assertion: docs/notifications.md quotes it.
    process.stdout.write(
      `send→record window on FerretDB (ms): n=${windows.length} (per instance ${instances.map((x) => x.windows.length).join('/')}) p50=${pct(0.5)} p99=${pct(0.99)} max=${pct(1)}\n`,
    );
  }, 120_000);

  it('retries due deliveries from both workers at once: each retried mail goes out once', async () => {
    refusals.set('two@example.com', 421);
    const ids = await submit(24);
    const log = instances[0]?.log as DeliveryLog;
    await eventually(async () => {
      for (const id of ids) {
        const entries = await log.listBySubmission({ orgId }, id);
        expect(entries.map((d) => `${d.target} ${d.status}`).sort()).toEqual([
          'one@example.com succeeded',
          'two@example.com retrying',
        ]);
      }
    }, 90_000);
    refusals.delete('two@example.com');
    now += 10_000;
    await Promise.all(instances.map((i) => i.service.runDueAttempts()));
    await Promise.all(instances.map((i) => i.service.runDueAttempts()));
    for (const id of ids) {
      const entries = await log.listBySubmission({ orgId }, id);
      expect(entries.map((d) => `${d.target} ${d.status} ${d.attempts}`).sort()).toEqual([
        'one@example.com succeeded 1',
        'two@example.com succeeded 2',
      ]);
    }
    const mails = mailsOf(ids);
    expect(mails).toHaveLength(ids.length * 2);
    expect(new Set(mails.map((m) => `${m.to.join()} ${m.subject}`)).size).toBe(mails.length);
  }, 120_000);
});
