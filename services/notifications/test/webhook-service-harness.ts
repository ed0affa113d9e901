import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import {
  DEFAULT_FORM_SETTINGS,
  type DeliveryDto,
  encodeEvent,
  type Form,
  type SubmissionReceived,
  Topics,
} from '@formgate/contracts';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  type Identity,
  listen,
  systemIds,
} from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { createFileMailer, type Mailer, type MailFileSummary } from '@formgate/mail';
import { openSqlite } from '@formgate/store/sqlite';
import { expect } from 'vitest';
import { createDeliveryChannels } from '../src/channels/index.ts';
import {
  createNotificationsService,
  type NotificationsService,
  type NotificationsServiceDeps,
} from '../src/create-service.ts';
import { createDeliveryRunner } from '../src/deliveries/delivery-runner.ts';
import { ALL_CHANNEL_KINDS, createSubmissionReceivedHandler } from '../src/deliveries/submission-received.handler.ts';
import type { Composer } from '../src/email/composer.ts';
import type { KeptMail } from '../src/email/kept-mail.ts';
import type { NotificationStores, WebhookEndpointStore } from '../src/store/index.ts';
import {
  createSqliteNotificationStores,
  createSqliteRecipientStore,
  createSqliteWebhookEndpointStore,
} from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';

const composer: Composer = {
  notification: ({ submission, to }) => ({ to, subject: `n ${submission.submissionId}`, text: 'x' }),
  autoresponse: ({ submission, to }) => ({ to, subject: `a ${submission.submissionId}`, text: 'x' }),
};

/**
 * The delivery engine built again from a service's `deps`, with what a test replaces in them (a mailer, a counted
 * store): its channels, its runner and a received handler for every channel.
 */
export function engineOf(deps: NotificationsServiceDeps) {
  const channels = createDeliveryChannels(deps);
  const runner = createDeliveryRunner({ ...deps, channels });
  const handler = createSubmissionReceivedHandler({ ...deps, runner, channels }, ALL_CHANNEL_KINDS);
  return { channels, runner, handler };
}

export type Caller = Pick<Identity, 'orgId'> & Partial<Identity>;

/**
 * The notifications service on the embedded log and SQLite, on a real HTTP port, with a test clock: what the
 * webhook tests drive through its API and its topics.
 */
export async function startWebhookService(options: {
  allowPrivateTargets: boolean;
  /** Sends the mails (a real SMTP mailer); the file mailer under the test's directory without. */
  mailer?: Mailer;
  /** The kept copies of the file mailer's mails (in `mailDir`), forgotten on an erasure; none without. */
  keptMail?: (mailDir: string) => KeptMail;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'fg-webhooks-'));
  const bus: EventBus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
  const db = migratedSqlite(join(dir, 'notifications.db'));
  const stores: NotificationStores = createSqliteNotificationStores(db);
  const endpoints: WebhookEndpointStore = createSqliteWebhookEndpointStore(db);
  const mailer =
    options.mailer ?? createFileMailer({ dir: join(dir, 'mail'), from: 'Formgate <no-reply@formgate.test>' });
  const recipients = createSqliteRecipientStore(db);
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  const clock = { now: Date.parse('2026-11-20T10:00:00.000Z') };
  const deps: NotificationsServiceDeps = {
    stores,
    bus,
    mailer,
    clock: { now: () => new Date(clock.now) },
    ids: systemIds,
    logger: createLogger({ level: 'silent', name: 'notifications' }),
    identity: codec,
    compose: composer,
    recipients,
    endpoints,
    allowPrivateTargets: options.allowPrivateTargets,
    webhookTimeoutMs: 2_000,
    linkSecret: randomBytes(32).toString('base64url'),
    publicUrl: 'http://formgate.test',
    random: () => 0.5,
    retryIntervalMs: 3_600_000,
    ...(options.keptMail ? { keptMail: options.keptMail(join(dir, 'mail')) } : {}),
  };
  const service: NotificationsService = createNotificationsService(deps);
  await service.start();
  const server: Server = createHttpServer(service.app);
  const baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;

  const api = async (method: string, path: string, caller: Caller, body?: unknown) => {
    const token = await codec.sign({ userId: 'u1', email: null, roles: ['owner'], via: 'session', ...caller });
    const json = body ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { [IDENTITY_HEADER]: token, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  const publishForm = async (orgId = `org_${randomUUID()}`, settings: Partial<Form['settings']> = {}) => {
    const now = new Date(clock.now).toISOString();
    const form: Form = {
      id: `form_${randomUUID()}`,
      orgId,
      name: 'Contact <b>us</b>',
      slug: `contact-${randomUUID()}`,
      key: randomUUID(),
      settings: { ...DEFAULT_FORM_SETTINGS, ...settings },
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    const value = encodeEvent(Topics.formsForm, {
      id: randomUUID(),
      type: 'form.upserted',
      version: 1,
      occurredAt: now,
      data: form,
    });
    await bus.publish(Topics.formsForm, [{ key: form.id, value }]);
    await eventually(async () =>
      expect(await stores.views.getForm({ orgId: form.orgId }, form.id)).toMatchObject({ version: 1 }),
    );
    return form;
  };

  const received = (form: Form, over: Partial<SubmissionReceived['data']> = {}): SubmissionReceived['data'] => {
    const now = new Date(clock.now).toISOString();
    return {
      submissionId: randomUUID(),
      formId: form.id,
      orgId: form.orgId,
      receivedAt: now,
      fields: [{ name: 'message', value: 'Hello <script>alert(1)</script>' }],
      files: [],
      meta: {},
      spam: { isSpam: false, reasons: [] },
      held: false,
      ...over,
    };
  };

  /** A `submission.received` of a new submission to `form`, as ingest publishes it (not published). */
  const submissionEvent = (form: Form, over: Partial<SubmissionReceived['data']> = {}) => {
    const data = received(form, over);
    const value = encodeEvent(Topics.ingestSubmission, {
      id: randomUUID(),
      type: 'submission.received',
      version: 1,
      occurredAt: new Date(clock.now).toISOString(),
      data,
    });
    return { submissionId: data.submissionId, key: form.id, value };
  };
  const submit = async (form: Form, over: Partial<SubmissionReceived['data']> = {}) => {
    const { submissionId, key, value } = submissionEvent(form, over);
    await bus.publish(Topics.ingestSubmission, [{ key, value }]);
    return submissionId;
  };

  /** The forms service released a held submission (issue 13): `submission.released` under the event id `id`. */
  const release = async (
    form: Form,
    submissionId: string,
    over: Partial<SubmissionReceived['data']> = {},
    id = randomUUID(),
  ) => {
    const now = new Date(clock.now).toISOString();
    const data = { ...received(form, over), submissionId, held: false as const, releasedAt: now };
    const value = encodeEvent(Topics.formsSubmission, {
      id,
      type: 'submission.released',
      version: 1,
      occurredAt: now,
      data,
    });
    await bus.publish(Topics.formsSubmission, [{ key: form.id, value }]);
    return id;
  };

  /** A change made through the forms API: `submission.deleted`, or `submission.spam-marked` with `spam`. */
  const change = async (form: Form, submissionId: string, change: { deleted: true } | { spam: boolean }) => {
    const now = new Date(clock.now).toISOString();
    const data = { submissionId, formId: form.id, orgId: form.orgId, receivedAt: now, wasSpam: false };
    const value =
      'deleted' in change
        ? encodeEvent(Topics.formsSubmission, {
            id: randomUUID(),
            type: 'submission.deleted',
            version: 1,
            occurredAt: now,
            data,
          })
        : encodeEvent(Topics.formsSubmission, {
            id: randomUUID(),
            type: 'submission.spam-marked',
            version: 1,
            occurredAt: now,
            data: { ...data, spam: change.spam },
          });
    await bus.publish(Topics.formsSubmission, [{ key: form.id, value }]);
  };

  const addWebhook = async (form: Form, body: Record<string, unknown>) => {
    const res = await api('POST', `/api/v1/forms/${form.id}/webhooks`, form, body);
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string; url: string };
  };

  const deliveriesOf = async (form: Form, submissionId: string) => {
    const res = await api('GET', `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries`, form);
    expect(res.status).toBe(200);
    return res.body.data as DeliveryDto[];
  };

  /** Makes `email` a verified notification address of the organization. */
  const verify = async (orgId: string, email: string) => {
    const at = new Date();
    await recipients.add({ orgId }, { id: randomUUID(), email, createdAt: at, verifiedAt: at }, { limit: 50 });
  };
  /** The mails the file mailer wrote (no SMTP here). */
  const mails = () =>
    readdirSync(join(dir, 'mail'), { withFileTypes: true })
      .filter((f) => f.name.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, 'mail', f.name), 'utf8')) as MailFileSummary);

  return {
    clock,
    /** What the service was made of: a test composes more of the pipeline from it. */
    deps,
    verify,
    mails,
    bus,
    stores,
    endpoints,
    service,
    api,
    publishForm,
    submit,
    submissionEvent,
    change,
    release,
    addWebhook,
    deliveriesOf,
    async stop() {
      await closeServer(server);
      await service.stop();
      await mailer.close();
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type WebhookService = Awaited<ReturnType<typeof startWebhookService>>;
