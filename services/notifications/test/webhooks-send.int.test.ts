import { generateWebhookSecret } from '@formgate/kit/webhook-signing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWebhookRequest,
  MAX_RESPONSE_TEXT_BYTES,
  sendWebhook,
  type WebhookKind,
} from '../src/channels/webhook/index.ts';
import { verifiesWith } from './standard-webhooks-verifier.ts';
import { createdEvent } from './webhook-fixtures.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

/** One webhook attempt against real HTTP receivers on 127.0.0.1 (the operator switch on: they are loopback). */
describe('sendWebhook against a real receiver', () => {
  let receiver: WebhookReceiver;
  let other: WebhookReceiver;
  const send = (url: string, body = '{}', timeoutMs = 5000) =>
    sendWebhook({ url, body, headers: {}, timeoutMs, allowPrivateTargets: true });

  beforeAll(async () => {
    receiver = await startReceiver();
    other = await startReceiver();
  });
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.connections = 0;
    receiver.handler = (_request, response) => response.end('ok');
  });
  afterAll(async () => {
    await receiver.close();
    await other.close();
  });

  it.each<WebhookKind>(['standard', 'slack', 'discord', 'rest-hook'])(
    'delivers a signed %s body the receiver can verify',
    async (kind) => {
      const secret = generateWebhookSecret();
      const { body, headers } = buildWebhookRequest({
        kind,
        event: createdEvent(),
        msgId: 'dlv_01TEST',
        now: new Date(),
        secret,
      });
      const outcome = await sendWebhook({
        url: `${receiver.url}/hooks/in?token=a%20b`,
        body,
        headers,
        timeoutMs: 5000,
        allowPrivateTargets: true,
      });
      expect(outcome).toEqual({ ok: true, status: 200, text: 'ok' });
      expect(receiver.requests).toHaveLength(1);
      const [received] = receiver.requests;
      expect(received?.method).toBe('POST');
      expect(received?.url).toBe('/hooks/in?token=a%20b');
      expect(received?.headers['content-type']).toBe('application/json');
      expect(received?.headers['user-agent']).toBe('Formgate-Webhooks/1');
      expect(received?.headers['webhook-id']).toBe('dlv_01TEST');
      expect(received?.body).toBe(body);
      expect(verifiesWith(secret, received?.headers ?? {}, received?.body ?? '')).toBe(true);
      expect(verifiesWith(generateWebhookSecret(), received?.headers ?? {}, received?.body ?? '')).toBe(false);
      const parsed = JSON.parse(received?.body ?? '');
      const shape = {
        standard: ['type', 'timestamp', 'data'],
        slack: ['text', 'blocks'],
        discord: ['content', 'embeds'],
        'rest-hook': ['id', 'event', 'createdAt', 'form', 'fields', 'files'],
      };
      for (const key of shape[kind]) expect(parsed).toHaveProperty(key);
    },
  );

  it('during a rotation the receiver can verify with the old secret and with the new one', async () => {
    const [secret, old] = [generateWebhookSecret(), generateWebhookSecret()];
    const now = new Date();
    const request = buildWebhookRequest({
      kind: 'standard',
      event: createdEvent(),
      msgId: 'dlv_rot',
      now,
      secret,
      previousSecret: { secret: old, expiresAt: new Date(now.getTime() + 86_400_000) },
    });
    await sendWebhook({ url: receiver.url, ...request, timeoutMs: 5000, allowPrivateTargets: true });
    const [received] = receiver.requests;
    expect(String(received?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifiesWith(secret, received?.headers ?? {}, received?.body ?? '')).toBe(true);
    expect(verifiesWith(old, received?.headers ?? {}, received?.body ?? '')).toBe(true);
  });

  it('treats a 3xx as a retryable failure and never follows it', async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(302, { location: `${other.url}/stolen` }).end('moved');
    };
    const outcome = await send(receiver.url);
    expect(outcome).toEqual({ ok: false, retryable: true, code: 'WEBHOOK_REDIRECT', status: 302, text: 'moved' });
    expect(other.connections).toBe(0);
    expect(other.requests).toHaveLength(0);
  });

  it('treats 410 Gone as permanent (the endpoint should be disabled)', async () => {
    receiver.handler = (_request, response) => response.writeHead(410).end('gone for good');
    expect(await send(receiver.url)).toEqual({
      ok: false,
      retryable: false,
      code: 'WEBHOOK_GONE',
      status: 410,
      text: 'gone for good',
    });
  });

  it.each([500, 503, 404, 429])('treats %i as retryable', async (status) => {
    receiver.handler = (_request, response) => response.writeHead(status).end('boom');
    expect(await send(receiver.url)).toEqual({
      ok: false,
      retryable: true,
      code: 'WEBHOOK_HTTP_ERROR',
      status,
      text: 'boom',
    });
  });

  it('sends credentials in the URL as basic auth, even malformed ones', async () => {
    const base = receiver.url.replace('http://', '');
    expect(await send(`http://hook%20user:p%40ss@${base}/`)).toMatchObject({ ok: true });
    expect(await send(`http://%zz:x@${base}/`)).toMatchObject({ ok: true });
    const auth = receiver.requests.map((r) =>
      Buffer.from(String(r.headers.authorization).slice(6), 'base64').toString(),
    );
    expect(auth).toEqual(['hook user:p@ss', '%zz:x']);
  });

  it('accepts any 2xx as success', async () => {
    receiver.handler = (_request, response) => response.writeHead(204).end();
    expect(await send(receiver.url)).toEqual({ ok: true, status: 204, text: '' });
  });

  it('gives up at the deadline when the receiver does not answer', async () => {
    receiver.handler = () => {};
    const started = Date.now();
    const outcome = await send(receiver.url, '{}', 300);
    expect(outcome).toEqual({ ok: false, retryable: true, code: 'WEBHOOK_TIMEOUT', text: 'No response within 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('keeps the status when the body stalls past the deadline after the headers', async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(200);
      response.write('partial');
    };
    expect(await send(receiver.url, '{}', 300)).toEqual({ ok: true, status: 200, text: 'partial' });
  });

  it('keeps at most 1 KB of a huge response and stops reading it', async () => {
    receiver.handler = (_request, response) => response.writeHead(500).end('é'.repeat(2_000_000));
    const started = Date.now();
    const outcome = await send(receiver.url);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(outcome).toMatchObject({ ok: false, code: 'WEBHOOK_HTTP_ERROR', status: 500 });
    expect(Buffer.byteLength(outcome.text)).toBe(MAX_RESPONSE_TEXT_BYTES);
    expect(outcome.text).toBe('é'.repeat(MAX_RESPONSE_TEXT_BYTES / 2));
  });

  it('reports a refused connection as retryable', async () => {
    const closed = await startReceiver();
    await closed.close();
    expect(await send(closed.url)).toEqual({
      ok: false,
      retryable: true,
      code: 'WEBHOOK_CONNECTION_FAILED',
      text: 'Connection failed: ECONNREFUSED',
    });
  });

  it.each(['ftp://127.0.0.1/x', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])(
    'refuses %s permanently without connecting',
    async (url) => {
      expect(await send(url)).toEqual({
        ok: false,
        retryable: false,
        code: 'WEBHOOK_INVALID_URL',
        text: 'Only http(s) URLs can receive webhooks',
      });
    },
  );

  it("stops when the caller's signal aborts", async () => {
    receiver.handler = () => {};
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const outcome = await sendWebhook({
      url: receiver.url,
      body: '{}',
      timeoutMs: 5000,
      allowPrivateTargets: true,
      signal: controller.signal,
    });
    expect(outcome).toEqual({ ok: false, retryable: true, code: 'WEBHOOK_ABORTED', text: 'Aborted' });
  });
});
