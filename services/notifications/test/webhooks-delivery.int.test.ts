import { randomUUID } from 'node:crypto';
import type { BusMessage, Subscription } from '@formgate/bus';
import { type DeliveryEvent, decodeEvent, Topics, type WebhookEndpointDto } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { generateWebhookSecret } from '@formgate/kit/webhook-signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v1Signatures, verifiesWith } from './standard-webhooks-verifier.ts';
import { type ReceivedRequest, startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const bodyOf = (r: ReceivedRequest) =>
  JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> };

describe('webhook deliveries to real HTTP receivers (embedded log and stores, WEBHOOKS_ALLOW_PRIVATE_TARGETS on)', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  let other: WebhookReceiver;
  let follower: Subscription;
  const outcomes: BusMessage[] = [];
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true });
    receiver = await startReceiver();
    other = await startReceiver();
    follower = await svc.bus.replay(Topics.notificationsDelivery, (m) => void outcomes.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await receiver.close();
    await other.close();
    await svc.stop();
  });
  const at = (path: string) => receiver.requests.filter((r) => r.url === path);
  const path = () => `/${randomUUID()}`;

  it('sends one signed Standard Webhook within a second, logged with its webhook-id', async () => {
    const form = await svc.publishForm();
    const p = path();
    const hook = await svc.addWebhook(form, { url: `${receiver.url}${p}` });
    const started = performance.now();
    const submissionId = await svc.submit(form);
    await eventually(() => expect(at(p)).toHaveLength(1), 2_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    const [request] = at(p);
    if (!request) throw new Error('no request');
    expect(verifiesWith(hook.secret, request.headers, request.body)).toBe(true);
    expect(verifiesWith(generateWebhookSecret(), request.headers, request.body)).toBe(false);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(svc.clock.now / 1000)));
    expect(request.headers['content-type']).toBe('application/json');
    const body = bodyOf(request);
    expect(body).toMatchObject({
      type: 'submission.created',
      data: {
        id: submissionId,
        formId: form.id,
        spam: false,
        fields: [{ name: 'message', value: 'Hello <script>alert(1)</script>' }],
        form: { id: form.id, name: 'Contact <b>us</b>' },
      },
    });
    expect(request.body).not.toContain('<script>');
    await eventually(async () => {
      const [d] = await svc.deliveriesOf(form, submissionId);
      expect(d).toMatchObject({
        channel: 'webhook',
        purpose: 'standard',
        target: `${receiver.url}${p}`,
        targetId: hook.id,
        status: 'succeeded',
        attempts: 1,
        lastResponse: { code: '200' },
      });
      expect(d?.messageId).toBe(request.headers['webhook-id']);
    });
    // The outcome event names the endpoint by its id: a Slack or Discord URL is a credential.
    await eventually(() => {
      const events = outcomes
        .map((m) => decodeEvent(Topics.notificationsDelivery, m.value))
        .filter((e): e is DeliveryEvent => e.type !== 'submission.settled' && e.data.submissionId === submissionId);
      expect(events.map((e) => [e.type, e.data.channel, e.data.purpose, e.data.target])).toEqual([
        ['delivery.succeeded', 'webhook', 'standard', hook.id],
      ]);
    });
    const [listed] = (await svc.api('GET', `/api/v1/forms/${form.id}/webhooks`, form)).body
      .data as WebhookEndpointDto[];
    expect(listed?.stats).toEqual({ recent: 1, succeeded: 1, failed: 0, successRate: 1 });
  });

  it('sends spam only to a submission.spam subscriber, and a held submission to nobody', async () => {
    const form = await svc.publishForm();
    const [created, spam] = [path(), path()];
    await svc.addWebhook(form, { url: `${receiver.url}${created}`, events: ['submission.created'] });
    await svc.addWebhook(form, { url: `${receiver.url}${spam}`, events: ['submission.spam'] });
    const spamId = await svc.submit(form, {
      spam: {
        isSpam: true,
        reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
      },
    });
    const heldId = await svc.submit(form, { held: true });
    const normalId = await svc.submit(form);
    await eventually(() => expect(at(created)).toHaveLength(1));
    await eventually(() => expect(at(spam)).toHaveLength(1));
    expect(bodyOf(at(created)[0] as ReceivedRequest).data.id).toBe(normalId);
    expect(bodyOf(at(spam)[0] as ReceivedRequest)).toMatchObject({
      type: 'submission.spam',
      data: { id: spamId, spam: true },
    });
    expect(await svc.deliveriesOf(form, heldId)).toEqual([]);
    // Marked spam later through the API: the spam subscriber hears about it too.
    await svc.change(form, normalId, { spam: true });
    await eventually(() => expect(at(spam)).toHaveLength(2));
    expect(bodyOf(at(spam)[1] as ReceivedRequest)).toMatchObject({
      type: 'submission.spam',
      data: { id: normalId, spam: true },
    });
    expect(at(created)).toHaveLength(1);
  });

  it('sends submission.deleted to its subscribers when a submission is deleted', async () => {
    const form = await svc.publishForm();
    const [created, deleted] = [path(), path()];
    await svc.addWebhook(form, { url: `${receiver.url}${created}` });
    const hook = await svc.addWebhook(form, {
      url: `${receiver.url}${deleted}`,
      events: ['submission.deleted'],
      kind: 'standard',
    });
    const submissionId = await svc.submit(form);
    await eventually(() => expect(at(created)).toHaveLength(1));
    await svc.change(form, submissionId, { deleted: true });
    await eventually(() => expect(at(deleted)).toHaveLength(1));
    const request = at(deleted)[0] as ReceivedRequest;
    expect(verifiesWith(hook.secret, request.headers, request.body)).toBe(true);
    expect(bodyOf(request)).toEqual({
      type: 'submission.deleted',
      timestamp: new Date(svc.clock.now).toISOString(),
      data: {
        id: submissionId,
        formId: form.id,
        createdAt: new Date(svc.clock.now).toISOString(),
        form: { id: form.id, name: 'Contact <b>us</b>' },
      },
    });
    // Forgotten once the send is done: the receiver has the request before the service has its answer.
    await eventually(async () =>
      expect(await svc.stores.views.getSubmission({ orgId: form.orgId }, submissionId)).toBeNull(),
    );
  });

  it('retries a 500 on the schedule with the same webhook-id, then succeeds', async () => {
    const form = await svc.publishForm();
    const p = path();
    await svc.addWebhook(form, { url: `${receiver.url}${p}` });
    let calls = 0;
    receiver.handler = (request, response) => {
      if (request.url === p && calls++ === 0) {
        response.statusCode = 500;
        return response.end('down <b>now</b>');
      }
      response.end('ok');
    };
    const submissionId = await svc.submit(form);
    await eventually(async () => expect((await svc.deliveriesOf(form, submissionId))[0]?.status).toBe('retrying'));
    const [retrying] = await svc.deliveriesOf(form, submissionId);
    expect(retrying).toMatchObject({
      attempts: 1,
      lastResponse: { code: '500', text: 'WEBHOOK_HTTP_ERROR: down <b>now</b>' },
    });
    expect(retrying?.nextAttemptAt).toBe(new Date(svc.clock.now + 5_000).toISOString());
    await svc.service.runDueAttempts();
    expect(at(p)).toHaveLength(1);
    svc.clock.now += 5_000;
    await svc.service.runDueAttempts();
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, submissionId))[0]).toMatchObject({ status: 'succeeded', attempts: 2 }),
    );
    const [first, second] = at(p);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.headers['webhook-timestamp']).not.toBe(first?.headers['webhook-timestamp']);
    receiver.handler = (_request, response) => response.end('ok');
  });

  it('treats a 302 as a failure and never follows it', async () => {
    const form = await svc.publishForm();
    const p = path();
    await svc.addWebhook(form, { url: `${receiver.url}${p}` });
    receiver.handler = (request, response) => {
      if (request.url !== p) return response.end('ok');
      response.writeHead(302, { location: `${other.url}/followed` });
      response.end();
    };
    const submissionId = await svc.submit(form);
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, submissionId))[0]).toMatchObject({
        status: 'retrying',
        lastResponse: { code: '302' },
      }),
    );
    expect(other.requests).toEqual([]);
    receiver.handler = (_request, response) => response.end('ok');
  });

  it('disables an endpoint that answers 410 Gone, says why, tells the organization, and sends it nothing more', async () => {
    const form = await svc.publishForm();
    await svc.verify(form.orgId, `owner-${form.id}@example.com`);
    const p = path();
    const hook = await svc.addWebhook(form, { url: `${receiver.url}${p}` });
    receiver.handler = (request, response) => {
      response.statusCode = request.url === p ? 410 : 200;
      response.end();
    };
    const first = await svc.submit(form);
    await eventually(async () =>
      expect((await svc.deliveriesOf(form, first))[0]).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastResponse: { code: '410' },
      }),
    );
    await eventually(async () => {
      const [listed] = (await svc.api('GET', `/api/v1/forms/${form.id}/webhooks`, form)).body
        .data as WebhookEndpointDto[];
      expect(listed).toMatchObject({ id: hook.id, enabled: false, disabledReason: 'The endpoint answered 410 Gone' });
      expect(listed?.stats).toEqual({ recent: 1, succeeded: 0, failed: 1, successRate: 0 });
    });
    const notices = await eventually(() => {
      const mails = svc.mails().filter((m) => m.to === `owner-${form.id}@example.com`);
      expect(mails.map((m) => m.subject)).toEqual(['A webhook of Contact <b>us</b> was disabled']);
      return mails;
    });
    expect(notices[0]?.text).toContain('The endpoint answered 410 Gone');
    expect(notices[0]?.text).toContain(`${receiver.url}${p}`);
    expect(notices[0]?.links).toContain(`http://formgate.test/dashboard/forms/${form.slug}/settings`);
    const [delivery] = await svc.deliveriesOf(form, first);
    const resend = await svc.api(
      'POST',
      `/api/v1/forms/${form.id}/submissions/${first}/deliveries/${delivery?.id}/resend`,
      form,
    );
    expect([resend.status, (resend.body.error as { code: string }).code]).toEqual([
      409,
      'NOTIFICATIONS_WEBHOOK_DISABLED',
    ]);
    const second = await svc.submit(form);
    const witness = await svc.publishForm(form.orgId);
    const wp = path();
    await svc.addWebhook(witness, { url: `${receiver.url}${wp}` });
    await svc.submit(witness);
    await eventually(() => expect(at(wp)).toHaveLength(1));
    expect(await svc.deliveriesOf(form, second)).toEqual([]);
    expect(at(p)).toHaveLength(1);
    receiver.handler = (_request, response) => response.end('ok');
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const form = await svc.publishForm();
    const p = path();
    const hook = await svc.addWebhook(form, { url: `${receiver.url}${p}` });
    const rotated = await svc.api('POST', `/api/v1/forms/${form.id}/webhooks/${hook.id}/rotate-secret`, form);
    const secret = String(rotated.body.secret);
    await svc.submit(form);
    await eventually(() => expect(at(p)).toHaveLength(1));
    const during = at(p)[0] as ReceivedRequest;
    expect(v1Signatures(String(during.headers['webhook-signature']))).toHaveLength(2);
    expect(verifiesWith(secret, during.headers, during.body)).toBe(true);
    expect(verifiesWith(hook.secret, during.headers, during.body)).toBe(true);
    svc.clock.now += 86_400_000 + 1_000;
    await svc.submit(form);
    await eventually(() => expect(at(p)).toHaveLength(2));
    const after = at(p)[1] as ReceivedRequest;
    expect(v1Signatures(String(after.headers['webhook-signature']))).toHaveLength(1);
    expect(verifiesWith(secret, after.headers, after.body)).toBe(true);
    expect(verifiesWith(hook.secret, after.headers, after.body)).toBe(false);
  });

  it('resends a webhook delivery as a new message to the endpoint’s current URL', async () => {
    const form = await svc.publishForm();
    const [before, moved] = [path(), path()];
    const hook = await svc.addWebhook(form, { url: `${receiver.url}${before}` });
    const submissionId = await svc.submit(form);
    await eventually(() => expect(at(before)).toHaveLength(1));
    await svc.api('PATCH', `/api/v1/forms/${form.id}/webhooks/${hook.id}`, form, { url: `${receiver.url}${moved}` });
    const [original] = await svc.deliveriesOf(form, submissionId);
    const resend = await svc.api(
      'POST',
      `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries/${original?.id}/resend`,
      form,
    );
    expect(resend.status).toBe(202);
    expect(resend.body).toMatchObject({
      channel: 'webhook',
      resendOf: original?.id,
      target: `${receiver.url}${moved}`,
      status: 'succeeded',
    });
    expect(at(moved)).toHaveLength(1);
    const again = at(moved)[0] as ReceivedRequest;
    expect(again.headers['webhook-id']).not.toBe(at(before)[0]?.headers['webhook-id']);
    expect(bodyOf(again).data.id).toBe(submissionId);
    expect(await svc.deliveriesOf(form, submissionId)).toHaveLength(2);
  });
});

describe('webhook deliveries with private targets refused (WEBHOOKS_ALLOW_PRIVATE_TARGETS off)', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: false });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
  });

  it('fails a delivery to 127.0.0.1 for good at connect time, and disables the endpoint after 5 in a row', async () => {
    const form = await svc.publishForm();
    await svc.verify(form.orgId, 'ops@example.com');
    // Stored directly: the API refuses a literal loopback URL with the switch off; a DNS name could still resolve there.
    const id = randomUUID();
    const now = new Date(svc.clock.now).toISOString();
    await svc.endpoints.create(
      {
        id,
        orgId: form.orgId,
        formId: form.id,
        url: `${receiver.url}/hook`,
        kind: 'standard',
        events: ['submission.created'],
        enabled: true,
        disabledReason: null,
        enabledAt: now,
        secret: generateWebhookSecret(),
        previousSecret: null,
        createdAt: now,
        updatedAt: now,
        revision: 0,
      },
      { limit: 10 },
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      svc.clock.now += 1_000;
      const submissionId = await svc.submit(form);
      ids.push(submissionId);
      await eventually(async () =>
        expect((await svc.deliveriesOf(form, submissionId))[0]).toMatchObject({
          status: 'failed',
          attempts: 1,
          nextAttemptAt: null,
          lastResponse: { code: 'WEBHOOK_TARGET_FORBIDDEN' },
        }),
      );
      expect((await svc.endpoints.get({ orgId: form.orgId }, id))?.enabled).toBe(i < 4);
    }
    expect(receiver.connections).toBe(0);
    expect(await svc.endpoints.get({ orgId: form.orgId }, id)).toMatchObject({
      enabled: false,
      disabledReason: '5 deliveries in a row failed (last: WEBHOOK_TARGET_FORBIDDEN)',
    });
    await eventually(() =>
      expect(
        svc
          .mails()
          .filter((m) => m.to === 'ops@example.com')
          .map((m) => m.subject),
      ).toEqual(['A webhook of Contact <b>us</b> was disabled']),
    );
    // Re-enabled by a person: the failures before count no more.
    await svc.api('PATCH', `/api/v1/forms/${form.id}/webhooks/${id}`, form, { enabled: true });
    svc.clock.now += 1_000;
    const next = await svc.submit(form);
    await eventually(async () => expect((await svc.deliveriesOf(form, next))[0]?.status).toBe('failed'));
    expect((await svc.endpoints.get({ orgId: form.orgId }, id))?.enabled).toBe(true);
  });
});
