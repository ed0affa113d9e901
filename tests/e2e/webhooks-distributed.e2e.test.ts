import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifiesWith } from '../../services/notifications/test/standard-webhooks-verifier.ts';
import { startReceiver, type WebhookReceiver } from '../../services/notifications/test/webhook-receiver.ts';
import { eventually } from '../harness/embedded-app.ts';
import { followEvents, ofSubmission } from '../harness/live-events.ts';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

/**
 * Webhooks on the distributed processes: an endpoint created through the gateway, a submission through the gateway
 * and ingest, Kafka, the notifications process on FerretDB, and a real HTTP receiver that gets one signed request,
 * verified with a Standard Webhooks implementation written from the spec (not the `standardwebhooks` package the
 * sender uses). The delivery log shows it.
 */
describe('webhooks in distributed mode', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  let receiver: WebhookReceiver;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey('default'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.handler = (_request, response) => response.writeHead(204).end();
    cluster = await startDistributed({
      kafkaBrokers: KAFKA_BROKERS,
      mongoUrl: MONGO_URL,
      // The receiver listens on loopback.
      notificationsEnv: { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' },
    });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  });

  it('sends one signed request to an endpoint for a submission and logs it as succeeded', async () => {
    const created = await api('POST', '/api/v1/forms', { name: 'Hooks <b>e2e</b>' });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    const path = `/hook-${randomUUID()}`;
    // 404 until the notifications process's view of the forms (from `forms.form`) has the new form.
    let hook = { status: 0, body: {} as Record<string, unknown> };
    await eventually(async () => {
      hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, {
        url: `${receiver.url}${path}`,
        kind: 'standard',
        events: ['submission.created'],
      });
      expect(hook.status).toBe(201);
    }, 30_000);
    const { id: endpointId, secret } = hook.body as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_/);

    // Ingest may not know the new form for a moment: retry the same submission (one idempotency key) until 2xx.
    const idempotencyKey = randomUUID();
    let submissionId = '';
    await eventually(async () => {
      const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ email: 'ada@example.com', message: 'Hello <script>alert(1)</script>' }),
      });
      expect(res.status).toBeLessThan(300);
      submissionId = ((await res.json()) as { id: string }).id;
    }, 30_000);

    const mine = () => receiver.requests.filter((r) => r.url === path);
    await eventually(() => expect(mine()).toHaveLength(1), 60_000);
    const [request] = mine();
    if (!request) throw new Error('no request');
    expect(request.method).toBe('POST');
    expect(verifiesWith(secret, request.headers, request.body)).toBe(true);
    expect(verifiesWith(`whsec_${Buffer.from(randomUUID()).toString('base64')}`, request.headers, request.body)).toBe(
      false,
    );
    const body = JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
    expect(body).toMatchObject({
      type: 'submission.created',
      data: {
        id: submissionId,
        formId: form.id,
        fields: expect.arrayContaining([{ name: 'message', value: 'Hello <script>alert(1)</script>' }]),
        form: { id: form.id, name: 'Hooks <b>e2e</b>' },
      },
    });
    // Escaped for HTML contexts on the wire (`\u003c`), equal once parsed.
    expect(request.body).not.toContain('<script>');

    await eventually(async () => {
      const log = await api('GET', `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries`);
      expect(log.status).toBe(200);
      const hooks = (log.body.data as Record<string, unknown>[]).filter((d) => d.channel === 'webhook');
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({
        channel: 'webhook',
        targetId: endpointId,
        status: 'succeeded',
        attempts: 1,
        lastResponse: { code: '204' },
        messageId: request.headers['webhook-id'],
      });
    }, 30_000);
    // Still one request a moment later: no second attempt after the 2xx.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(mine()).toHaveLength(1);
  }, 180_000);

  it('streams new submissions and their deliveries live through the gateway, and resumes from the last event id', async () => {
    const apiKey = await cluster.apiKey('default');
    const created = await api('POST', '/api/v1/forms', { name: 'Live e2e' });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    const path = `/live-${randomUUID()}`;
    await eventually(async () => {
      const hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}${path}` });
      expect(hook.status).toBe(201);
    }, 30_000);
    const submit = async (message: string) => {
      const key = randomUUID();
      let id = '';
      await eventually(async () => {
        const res = await fetch(`${cluster.baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ email: 'ada@example.com', message }),
        });
        expect(res.status).toBeLessThan(300);
        id = ((await res.json()) as { id: string }).id;
      }, 30_000);
      return id;
    };
    /** Follows the stream (gateway → http-proxy-middleware → notifications, which replays Kafka from its end). */
    const follow = (lastEventId?: string) =>
      followEvents({ baseUrl: cluster.baseUrl, apiKey, formId: form.id, ...(lastEventId ? { lastEventId } : {}) });

    const live = follow();
    await live.open;
    const first = await submit('first');
    await eventually(
      () => expect(ofSubmission(live.events, first).map((e) => e.type)).toContain('delivery.succeeded'),
      60_000,
    );
    const [createdEvent] = ofSubmission(live.events, first);
    expect(createdEvent?.type).toBe('submission.created');
    const delivered = receiver.requests.find((r) => r.url === path);
    expect(createdEvent?.data).toBe(delivered?.body);
    const lastSeen = live.events.at(-1)?.id as string;
    await live.close();

    // Missed while no stream was open: the next one, resumed from the last id, gets it and nothing seen before.
    const missed = await submit('missed');
    await eventually(() => expect(receiver.requests.filter((r) => r.url === path)).toHaveLength(2), 60_000);
    const resumed = follow(lastSeen);
    await resumed.open;
    await eventually(
      () => expect(ofSubmission(resumed.events, missed).map((e) => e.type)).toContain('submission.created'),
      30_000,
    );
    expect(ofSubmission(resumed.events, first).filter((e) => e.type === 'submission.created')).toEqual([]);
    await resumed.close();
  }, 180_000);
});
