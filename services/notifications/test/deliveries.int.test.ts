import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BusMessage, EventBus, Subscription } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import {
  DEFAULT_FORM_SETTINGS,
  type DeliveryDto,
  type DeliveryEvent,
  decodeEvent,
  encodeEvent,
  type Form,
  type FormNotifications,
  type SubmissionReceived,
  Topics,
} from '@formgate/contracts';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  createMetrics,
  IDENTITY_HEADER,
  type Identity,
  listen,
  systemIds,
} from '@formgate/kit';
import { eventually, parsePrometheusText, sumOf } from '@formgate/kit/testing';
import { createSmtpMailer, type Mailer } from '@formgate/mail';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationsService, type NotificationsService } from '../src/create-service.ts';
import { newDelivery, plannedDeliveryId } from '../src/deliveries/plan-deliveries.ts';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import type { Composer } from '../src/email/composer.ts';
import type { Delivery, NotificationStores } from '../src/store/index.ts';
import {
  createSqliteNotificationStores,
  createSqliteRecipientStore,
  createSqliteWebhookEndpointStore,
} from '../src/store/sqlite/index.ts';
import { migratedSqlite } from './notifications-db.ts';

const { attemptLeaseMs: ATTEMPT_LEASE_MS, outboxGraceMs: OUTBOX_GRACE_MS } = DELIVERY_TUNING;

/** A test composer: plain text, the submission id in the subject so each mail can be traced to its submission. */
const composer: Composer = {
  notification: ({ form, submission, to }) => ({
    to,
    subject: `notification ${submission.submissionId} ${form.name}`,
    text: submission.fields.map((f) => `${f.name}: ${f.value}`).join('\n'),
  }),
  autoresponse: ({ form, submission, to }) => ({
    to,
    subject: `autoresponse ${submission.submissionId}`,
    text: form.notifications.autoresponse.text,
  }),
};

describe('notifications deliveries on the embedded log with a real SMTP server', () => {
  let dir: string;
  let bus: EventBus;
  let stores: NotificationStores;
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  let service: NotificationsService;
  let server: Server;
  let baseUrl: string;
  let follower: Subscription;
  const outcomes: BusMessage[] = [];
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  let now = Date.parse('2026-11-20T10:00:00.000Z');
  /** Addresses the SMTP server refuses, with the reply code. */
  const refusals = new Map<string, number>();
  const recipients = createSqliteRecipientStore(migratedSqlite());
  const metrics = createMetrics({ defaults: false });
  /** Attempts counted so far in `formgate_notification_attempts_total`, by status. */
  const attemptsByStatus = async () => {
    const samples = parsePrometheusText((await metrics.exposition()).body);
    const of = (status: string) => sumOf(samples, 'formgate_notification_attempts_total', { channel: 'email', status });
    return { succeeded: of('succeeded'), retrying: of('retrying'), failed: of('failed') };
  };
  /** Makes exactly `emails` the organization's verified notification addresses (the real recipient store). */
  const setVerified = async (orgId: string, emails: string[]) => {
    for (const r of await recipients.list({ orgId })) await recipients.remove({ orgId }, r.id);
    for (const email of emails) {
      const at = new Date();
      await recipients.add(
        { orgId },
        { id: randomUUID(), email: email.toLowerCase(), createdAt: at, verifiedAt: at },
        { limit: 50 },
      );
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-notify-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    stores = createSqliteNotificationStores(migratedSqlite(join(dir, 'notifications.db')));
    smtp = await startSmtpTestServer({ refuseRecipient: (address) => refusals.get(address) ?? false });
    mailer = createSmtpMailer({ url: smtp.url, from: 'Formgate <no-reply@formgate.test>' });
    service = createNotificationsService({
      stores,
      bus,
      mailer,
      clock: { now: () => new Date(now) },
      ids: systemIds,
      logger: createLogger({ level: 'silent', name: 'notifications' }),
      identity: codec,
      compose: composer,
      recipients,
      endpoints: createSqliteWebhookEndpointStore(migratedSqlite()),
      allowPrivateTargets: false,
      linkSecret: randomBytes(32).toString('base64url'),
      publicUrl: 'http://formgate.test',
      random: () => 0.5,
      retryIntervalMs: 60_000,
      metrics,
    });
    await service.start();
    server = createHttpServer(service.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
    follower = await bus.replay(Topics.notificationsDelivery, (m) => void outcomes.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await closeServer(server);
    await service.stop();
    await mailer.close();
    await smtp.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const publishForm = async (notifications: Partial<FormNotifications>, orgId = `org_${randomUUID()}`) => {
    const form: Form = {
      id: `form_${randomUUID()}`,
      orgId,
      name: 'Contact',
      slug: `contact-${randomUUID()}`,
      key: randomUUID(),
      settings: {
        ...DEFAULT_FORM_SETTINGS,
        notifications: { ...DEFAULT_FORM_SETTINGS.notifications, ...notifications },
      },
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      version: 1,
    };
    await bus.publish(Topics.formsForm, [
      {
        key: form.id,
        value: encodeEvent(Topics.formsForm, {
          id: randomUUID(),
          type: 'form.upserted',
          version: 1,
          occurredAt: form.updatedAt,
          data: form,
        }),
      },
    ]);
    await eventually(async () =>
      expect(await stores.views.getForm({ orgId: form.orgId }, form.id)).toMatchObject({ version: 1 }),
    );
    return form;
  };

  const submissionEvent = (
    form: Form,
    over: Partial<SubmissionReceived['data']> = {},
  ): { key: string; value: string; submissionId: string } => {
    const submissionId = over.submissionId ?? randomUUID();
    const value = encodeEvent(Topics.ingestSubmission, {
      id: randomUUID(),
      type: 'submission.received',
      version: 1,
      occurredAt: new Date(now).toISOString(),
      data: {
        submissionId,
        formId: form.id,
        orgId: form.orgId,
        receivedAt: new Date(now).toISOString(),
        fields: [{ name: 'message', value: 'Hello <b>there</b>' }],
        files: [],
        meta: {},
        spam: { isSpam: false, reasons: [] },
        held: false,
        ...over,
      },
    });
    return { key: form.id, value, submissionId };
  };

  const submit = async (form: Form, over: Partial<SubmissionReceived['data']> = {}) => {
    const event = submissionEvent(form, over);
    await bus.publish(Topics.ingestSubmission, [{ key: event.key, value: event.value }]);
    return event;
  };

  const api = async (
    method: string,
    path: string,
    identity: Pick<Identity, 'orgId'> & Partial<Identity>,
    body?: unknown,
  ) => {
    const token = await codec.sign({ userId: 'u1', email: null, roles: ['owner'], via: 'session', ...identity });
    const json = body ?? (method === 'GET' ? undefined : {});
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { [IDENTITY_HEADER]: token, ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const deliveriesOf = async (form: Form, submissionId: string) => {
    const res = await api('GET', `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries`, form);
    expect(res.status).toBe(200);
    return res.body.data as DeliveryDto[];
  };
  /** The key of a planned notification to `address` (what `plannedDeliveryId` derives the delivery's id from). */
  const notificationTo = (orgId: string, formId: string, submissionId: string, address: string) => ({
    orgId,
    formId,
    submissionId,
    channel: 'email' as const,
    purpose: 'notification',
    target: address,
    resendOf: null,
  });
  const mailsOf = (submissionId: string) => smtp.messages.filter((m) => m.subject.includes(submissionId));
  const outcomesOf = (submissionId: string) =>
    outcomes
      .map((m) => decodeEvent(Topics.notificationsDelivery, m.value))
      // The outcomes only: a no-store submission's `submission.settled` is `settled-submissions.int.test.ts`'s.
      .filter((e): e is DeliveryEvent => e.type !== 'submission.settled' && e.data.submissionId === submissionId);

  it('sends one email per listed verified address, logs two succeeded deliveries and publishes their outcomes', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['one@example.com', 'Two@Example.com', 'not-listed@example.com']);
    const form = await publishForm({ emails: ['one@example.com', 'two@example.com', 'unverified@example.com'] }, orgId);
    const { submissionId } = await submit(form);

    await eventually(async () => {
      const log = await deliveriesOf(form, submissionId);
      expect(log.map((d) => [d.target, d.status, d.attempts])).toEqual(
        expect.arrayContaining([
          ['one@example.com', 'succeeded', 1],
          ['two@example.com', 'succeeded', 1],
        ]),
      );
      expect(log).toHaveLength(2);
    });
    const mails = mailsOf(submissionId);
    expect(mails.map((m) => m.to).sort()).toEqual([['one@example.com'], ['two@example.com']]);
    const log = await deliveriesOf(form, submissionId);
    for (const d of log) {
      expect(d).toMatchObject({ channel: 'email', purpose: 'notification', formId: form.id, resendOf: null });
      expect(d.messageId).toMatch(/^<.+>$/);
      expect(d.nextAttemptAt).toBeNull();
    }
    await eventually(() =>
      expect(outcomesOf(submissionId).map((e) => e.type)).toEqual(['delivery.succeeded', 'delivery.succeeded']),
    );
    expect(outcomesOf(submissionId)[0]?.data).toMatchObject({ orgId, channel: 'email', attempt: 1, final: true });
    // Claimed as they were planned (a batch's first attempts): never deferred, billing's deferred ledger skips them.
    expect(outcomesOf(submissionId).map((e) => e.data.neverDeferred)).toEqual([true, true]);
  });

  it('notifies nobody of a spam or a held submission', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['one@example.com']);
    const form = await publishForm({ emails: ['one@example.com'] }, orgId);
    const spam = await submit(form, {
      spam: {
        isSpam: true,
        reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
      },
    });
    const held = await submit(form, { held: true });
    // Same form, same partition: once this one is handled, so are the two before it.
    const normal = await submit(form);
    await eventually(() => expect(mailsOf(normal.submissionId)).toHaveLength(1));
    expect(mailsOf(spam.submissionId)).toEqual([]);
    expect(mailsOf(held.submissionId)).toEqual([]);
    expect(await deliveriesOf(form, spam.submissionId)).toEqual([]);
    expect(await deliveriesOf(form, held.submissionId)).toEqual([]);
  });

  it('retries a 421 on schedule and succeeds; fails a 550 for good without retrying', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['later@example.com', 'never@example.com']);
    refusals.set('later@example.com', 421);
    refusals.set('never@example.com', 550);
    const countedBefore = await attemptsByStatus();
    const form = await publishForm({ emails: ['later@example.com', 'never@example.com'] }, orgId);
    const { submissionId } = await submit(form);
    const byTarget = async () => new Map((await deliveriesOf(form, submissionId)).map((d) => [d.target, d]));

    await eventually(async () => {
      const log = await byTarget();
      expect(log.get('later@example.com')).toMatchObject({ status: 'retrying', attempts: 1 });
      expect(log.get('never@example.com')).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    });
    const retrying = (await byTarget()).get('later@example.com') as DeliveryDto;
    expect(retrying.lastResponse?.code).toBe('421');
    expect(retrying.nextAttemptAt).toBe(new Date(now + 5_000).toISOString());
    expect((await byTarget()).get('never@example.com')?.lastResponse?.code).toBe('550');

    // Not due yet: nothing happens.
    await service.runDueAttempts();
    expect((await byTarget()).get('later@example.com')).toMatchObject({ status: 'retrying', attempts: 1 });

    refusals.delete('later@example.com');
    refusals.delete('never@example.com');
    now += 6_000;
    await service.runDueAttempts();
    const after = await byTarget();
    expect(after.get('later@example.com')).toMatchObject({ status: 'succeeded', attempts: 2, nextAttemptAt: null });
    expect(mailsOf(submissionId).map((m) => m.to)).toEqual([['later@example.com']]);

    // A day later the permanent failure is still not retried.
    now += 86_400_000;
    await service.runDueAttempts();
    expect((await byTarget()).get('never@example.com')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(mailsOf(submissionId)).toHaveLength(1);
    await eventually(() =>
      expect(
        outcomesOf(submissionId)
          .map((e) => `${e.type} ${e.data.target} ${e.data.attempt}`)
          .sort(),
      ).toEqual(['delivery.failed never@example.com 1', 'delivery.succeeded later@example.com 2']),
    );
    // Outcomes recorded outside a batch's first attempts say nothing of deferrals: billing settles its ledger.
    expect(outcomesOf(submissionId).map((e) => e.data.neverDeferred)).toEqual([undefined, undefined]);
    // Every attempt counted once by what became of it: 421 then success, 550 for good.
    const counted = await attemptsByStatus();
    expect({
      succeeded: counted.succeeded - countedBefore.succeeded,
      retrying: counted.retrying - countedBefore.retrying,
      failed: counted.failed - countedBefore.failed,
    }).toEqual({ succeeded: 1, retrying: 1, failed: 1 });
  });

  it('sends nothing twice when the same submission is delivered twice, and publishes its outcomes again', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['one@example.com', 'two@example.com']);
    const form = await publishForm({ emails: ['one@example.com', 'two@example.com'] }, orgId);
    const event = submissionEvent(form);
    await bus.publish(Topics.ingestSubmission, [{ key: event.key, value: event.value }]);
    await eventually(() => expect(outcomesOf(event.submissionId)).toHaveLength(2));
    await bus.publish(Topics.ingestSubmission, [{ key: event.key, value: event.value }]);
    // The redelivery re-publishes both outcomes (billing deduplicates by event id / deliveryId).
    await eventually(() => expect(outcomesOf(event.submissionId)).toHaveLength(4));
    const ids = outcomesOf(event.submissionId).map((e) => e.id);
    expect(new Set(ids).size).toBe(2);
    expect(mailsOf(event.submissionId)).toHaveLength(2);
    expect(await deliveriesOf(form, event.submissionId)).toHaveLength(2);
  });

  it('sends an autoresponse to the submitter’s valid address, at most twice a day per address', async () => {
    const form = await publishForm({ emails: [], autoresponse: { enabled: true, text: 'Thanks, we got it.' } });
    const first = await submit(form, { fields: [{ name: 'email', value: 'Visitor@Example.com' }] });
    const second = await submit(form, { meta: { replyTo: 'visitor@example.com' } });
    const third = await submit(form, { meta: { replyTo: 'visitor@example.com' } });
    const invalid = await submit(form, { meta: { replyTo: 'not an address' } });
    const other = await submit(form, { fields: [{ name: 'email', value: 'other@example.com' }] });
    await eventually(() => expect(mailsOf(other.submissionId)).toHaveLength(1));
    expect(mailsOf(first.submissionId).map((m) => [m.to, m.text.trim()])).toEqual([
      [['visitor@example.com'], 'Thanks, we got it.'],
    ]);
    expect(mailsOf(second.submissionId)).toHaveLength(1);
    expect(mailsOf(third.submissionId)).toEqual([]);
    expect(mailsOf(invalid.submissionId)).toEqual([]);
    expect((await deliveriesOf(form, first.submissionId))[0]).toMatchObject({ purpose: 'autoresponse' });
  });

  it('resends one delivery and replays a form’s failed ones once; members read, only owners and admins act', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['ok@example.com', 'bounce@example.com']);
    refusals.set('bounce@example.com', 550);
    const form = await publishForm({ emails: ['ok@example.com', 'bounce@example.com'] }, orgId);
    const { submissionId } = await submit(form);
    await eventually(async () => {
      const log = await deliveriesOf(form, submissionId);
      expect(log.map((d) => d.status).sort()).toEqual(['failed', 'succeeded']);
    });
    const ok = 'ok@example.com';
    const bounced = 'bounce@example.com';
    const log = await deliveriesOf(form, submissionId);
    const okDelivery = log.find((d) => d.target === ok) as DeliveryDto;
    const base = `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries`;

    // Tenancy and roles.
    const stranger = await api('GET', base, { orgId: `org_${randomUUID()}` });
    expect(stranger.status).toBe(404);
    expect((stranger.body.error as { code: string }).code).toBe('FORMS_FORM_NOT_FOUND');
    const member = await api('POST', `${base}/${okDelivery.id}/resend`, { orgId, roles: ['member'] });
    expect(member.status).toBe(403);
    const otherOrgResend = await api('POST', `${base}/${okDelivery.id}/resend`, { orgId: `org_${randomUUID()}` });
    expect(otherOrgResend.status).toBe(404);
    const unknown = await api('POST', `${base}/${randomUUID()}/resend`, { orgId });
    expect((unknown.body.error as { code: string }).code).toBe('NOTIFICATIONS_DELIVERY_NOT_FOUND');
    expect((await api('GET', base, { orgId, roles: ['member'] })).status).toBe(200);

    const resent = await api('POST', `${base}/${okDelivery.id}/resend`, { orgId });
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ resendOf: okDelivery.id, target: ok, status: 'succeeded', attempts: 1 });
    expect(resent.body.id).not.toBe(okDelivery.id);
    expect(mailsOf(submissionId).filter((m) => m.to.includes(ok))).toHaveLength(2);

    // Replay: the failed one is sent again (the server accepts it now), once.
    refusals.delete(bounced);
    const range = { from: new Date(now - 60_000).toISOString(), to: new Date(now + 60_000).toISOString() };
    const replay = await api('POST', `/api/v1/forms/${form.id}/deliveries/replay`, { orgId }, range);
    expect(replay).toEqual({ status: 202, body: { replayed: 1, skipped: 0, more: false } });
    await eventually(() => expect(mailsOf(submissionId).filter((m) => m.to.includes(bounced))).toHaveLength(1));
    const again = await api('POST', `/api/v1/forms/${form.id}/deliveries/replay`, { orgId }, range);
    expect(again.body).toEqual({ replayed: 0, skipped: 0, more: false });
    expect((await deliveriesOf(form, submissionId)).filter((d) => d.resendOf !== null)).toHaveLength(2);

    // A `to` before `from` is an empty range: nothing to replay.
    const inverted = await api(
      'POST',
      `/api/v1/forms/${form.id}/deliveries/replay`,
      { orgId },
      { from: range.to, to: range.from },
    );
    expect(inverted).toEqual({ status: 202, body: { replayed: 0, skipped: 0, more: false } });
    const bad = await api('POST', `/api/v1/forms/${form.id}/deliveries/replay`, { orgId }, { from: 'yesterday' });
    expect(bad.status).toBe(400);
    expect((bad.body.error as { code: string }).code).toBe('VALIDATION_FAILED');

    // An address no longer verified is not resent to.
    await setVerified(orgId, ['bounce@example.com']);
    const unverified = await api('POST', `${base}/${okDelivery.id}/resend`, { orgId });
    expect(unverified.status).toBe(409);
    expect((unverified.body.error as { code: string }).code).toBe('NOTIFICATIONS_RECIPIENT_NOT_VERIFIED');
  });

  it('makes the next attempt once the claim of an instance that stopped mid-send has outlived its lease', async () => {
    const orgId = `org_${randomUUID()}`;
    const form = await publishForm({ emails: ['crash@example.com'] }, orgId);
    const event = submissionEvent(form);
    const submission = decodeEvent(Topics.ingestSubmission, event.value).data;
    // What a crashed instance leaves: the submission kept, the delivery planned, attempt 1 claimed (and perhaps sent),
    // no outcome recorded.
    await stores.views.saveSubmissions([submission]);
    const target = notificationTo(orgId, form.id, submission.submissionId, 'crash@example.com');
    const clock = { now: () => new Date(now) };
    const [planned] = await stores.log.planDeliveries([
      newDelivery({ clock }, { ...target, id: plannedDeliveryId(systemIds, target) }),
    ]);
    const id = planned?.id as string;
    const startedAt = new Date(now).toISOString();
    expect(
      await stores.log.claimAttempt(id, 1, { startedAt, leaseUntil: new Date(now + ATTEMPT_LEASE_MS).toISOString() }),
    ).toEqual({ claimed: true });

    // Within the lease nobody else sends.
    now += ATTEMPT_LEASE_MS - 1_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toEqual([]);
    expect(await stores.log.getDelivery({ orgId }, id)).toMatchObject({
      status: 'pending',
      lastClaimed: 1,
      attempts: 0,
    });

    now += 2_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId).map((m) => m.to)).toEqual([['crash@example.com']]);
    expect(await stores.log.getDelivery({ orgId }, id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      lastClaimed: 2,
    });
    expect((await stores.log.listAttempts({ orgId }, id)).map((a) => [a.attempt, a.outcome?.status ?? null])).toEqual([
      [1, null],
      [2, 'succeeded'],
    ]);
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toHaveLength(1);
  });

  it('finishes a consumer batch its instance left open once the lease has passed: attempt 2 of what it never recorded, its success published again', async () => {
    const orgId = `org_${randomUUID()}`;
    const form = await publishForm({ emails: ['batch-one@example.com', 'batch-two@example.com'] }, orgId);
    const submission = decodeEvent(Topics.ingestSubmission, submissionEvent(form).value).data;
    await stores.views.saveSubmissions([submission]);
    const clock = { now: () => new Date(now) };
    const planned = ['batch-one@example.com', 'batch-two@example.com'].map((address) => {
      const target = notificationTo(orgId, form.id, submission.submissionId, address);
      return newDelivery({ clock }, { ...target, id: plannedDeliveryId(systemIds, target) });
    });
    // What a crashed instance leaves: its batch claimed both, sent the first (recorded), maybe the second (not).
    const batch = {
      id: `batch_${randomUUID()}`,
      startedAt: new Date(now).toISOString(),
      leaseUntil: new Date(now + ATTEMPT_LEASE_MS).toISOString(),
    };
    const [one, two] = (await stores.log.claimFirstAttempts(batch, planned)).map((p) => p.delivery) as [
      Delivery,
      Delivery,
    ];
    const at = new Date(now).toISOString();
    const response = { code: '250', text: 'accepted' };
    await stores.log.recordFirstAttempt(batch, {
      delivery: one,
      outcome: { status: 'succeeded', response, messageId: '<m1@x.test>', nextAttemptAt: null, at },
    });

    now += ATTEMPT_LEASE_MS - 1_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toEqual([]);
    expect(await stores.log.listOpenBatches(new Date(now).toISOString(), 10)).toEqual([]);

    now += 2_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId).map((m) => m.to)).toEqual([['batch-two@example.com']]);
    expect(await stores.log.getDelivery({ orgId }, one.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await stores.log.getDelivery({ orgId }, two.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      lastClaimed: 2,
    });
    await eventually(() =>
      expect(
        outcomesOf(submission.submissionId)
          .map((e) => e.data.deliveryId)
          .sort(),
      ).toEqual([one.id, two.id].sort()),
    );
    expect(await stores.log.listOpenBatches(new Date(now).toISOString(), 10)).toEqual([]);
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toHaveLength(1);
  });

  it('attempts a delivery planned and never claimed (its planner stopped) once its lease has passed', async () => {
    const orgId = `org_${randomUUID()}`;
    await setVerified(orgId, ['unclaimed@example.com']);
    const form = await publishForm({ emails: ['unclaimed@example.com'] }, orgId);
    const submission = decodeEvent(Topics.ingestSubmission, submissionEvent(form).value).data;
    await stores.views.saveSubmissions([submission]);
    const target = notificationTo(orgId, form.id, submission.submissionId, 'unclaimed@example.com');
    await stores.log.planDeliveries([
      newDelivery({ clock: { now: () => new Date(now) } }, { ...target, id: plannedDeliveryId(systemIds, target) }),
    ]);
    now += ATTEMPT_LEASE_MS - 1_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toEqual([]);
    now += 2_000;
    await service.runDueAttempts();
    expect(mailsOf(submission.submissionId)).toHaveLength(1);
    expect(await deliveriesOf(form, submission.submissionId)).toMatchObject([{ status: 'succeeded', attempts: 1 }]);
  });

  it('publishes an outcome its recorder left unpublished once OUTBOX_GRACE_MS has passed, and only then', async () => {
    const orgId = `org_${randomUUID()}`;
    const form = await publishForm({ emails: ['outbox@example.com'] }, orgId);
    const submission = decodeEvent(Topics.ingestSubmission, submissionEvent(form).value).data;
    // What an instance that stopped after recording and before publishing leaves: a final outcome, marked pending.
    const target = notificationTo(orgId, form.id, submission.submissionId, 'outbox@example.com');
    const clock = { now: () => new Date(now) };
    const [planned] = await stores.log.planDeliveries([
      newDelivery({ clock }, { ...target, id: plannedDeliveryId(systemIds, target) }),
    ]);
    const id = planned?.id as string;
    const startedAt = new Date(now).toISOString();
    await stores.log.claimAttempt(id, 1, { startedAt, leaseUntil: new Date(now + ATTEMPT_LEASE_MS).toISOString() });
    await stores.log.recordOutcome(id, 1, {
      status: 'succeeded',
      response: { code: '250', text: 'accepted' },
      messageId: '<outbox@formgate.test>',
      nextAttemptAt: null,
      at: startedAt,
    });

    // Within the grace the outbox pass leaves it to its recorder: no event, which would be a duplicate otherwise.
    now += OUTBOX_GRACE_MS - 1_000;
    await service.runDueAttempts();
    await new Promise((r) => setTimeout(r, 200));
    expect(outcomesOf(submission.submissionId)).toEqual([]);

    now += 2_000;
    await service.runDueAttempts();
    await eventually(() =>
      expect(outcomesOf(submission.submissionId).map((e) => [e.type, e.data.deliveryId])).toEqual([
        ['delivery.succeeded', id],
      ]),
    );
    await service.runDueAttempts();
    await new Promise((r) => setTimeout(r, 200));
    expect(outcomesOf(submission.submissionId)).toHaveLength(1);
  });
});
