import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../src/channels/webhook/index.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const FORBIDDEN = {
  ok: false,
  retryable: false,
  code: 'WEBHOOK_TARGET_FORBIDDEN',
  text: 'The target address is not allowed (not public)',
};

/**
 * The SSRF guard with real sockets: receivers listen on 127.0.0.1 and ::1 and count every TCP connection, so a
 * refusal is proven to happen before connecting, not after.
 */
describe('webhook SSRF guard', () => {
  let v4: WebhookReceiver;
  let v6: WebhookReceiver;
  const send = (url: string, allowPrivateTargets = false) =>
    sendWebhook({ url, body: '{}', timeoutMs: 3000, allowPrivateTargets });

  beforeAll(async () => {
    v4 = await startReceiver('127.0.0.1');
    v6 = await startReceiver('::1');
  });
  afterEach(() => {
    for (const receiver of [v4, v6]) {
      receiver.connections = 0;
      receiver.requests.length = 0;
      receiver.handler = (_request, response) => response.end('ok');
    }
  });
  afterAll(async () => {
    await v4.close();
    await v6.close();
  });

  it.each([
    ['a literal loopback address', (p: number) => `http://127.0.0.1:${p}/`],
    ['a name resolving to loopback', (p: number) => `http://localhost:${p}/`],
    ['an IPv4-mapped IPv6 loopback', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`],
    ['a short-form loopback', (p: number) => `http://127.1:${p}/`],
    ['a decimal loopback', (p: number) => `http://2130706433:${p}/`],
    ['https to loopback', (p: number) => `https://127.0.0.1:${p}/`],
  ])('refuses %s without the switch, and the receiver sees no connection', async (_name, url) => {
    expect(await send(url(v4.port))).toEqual(FORBIDDEN);
    expect(v4.connections).toBe(0);
  });

  it('refuses the IPv6 loopback [::1] without a connection', async () => {
    expect(await send(`http://[::1]:${v6.port}/`)).toEqual(FORBIDDEN);
    expect(v6.connections).toBe(0);
  });

  it.each([
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::a00:1]/',
  ])('refuses %s at once, before any connection attempt', async (url) => {
    const started = Date.now();
    expect(await send(url)).toEqual(FORBIDDEN);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('delivers to loopback with the operator switch on (the receivers do count connections)', async () => {
    expect(await send(`http://127.0.0.1:${v4.port}/`, true)).toEqual({ ok: true, status: 200, text: 'ok' });
    expect(await send(`http://localhost:${v4.port}/`, true)).toEqual({ ok: true, status: 200, text: 'ok' });
    expect(await send(`http://[::1]:${v6.port}/`, true)).toEqual({ ok: true, status: 200, text: 'ok' });
    expect(v4.connections).toBe(2);
    expect(v6.connections).toBe(1);
  });

  it('still refuses 0.0.0.0 ("this host") with the switch on', async () => {
    expect(await send(`http://0.0.0.0:${v4.port}/`, true)).toEqual(FORBIDDEN);
    expect(v4.connections).toBe(0);
  });

  it('does not follow a redirect to the metadata address, even with the switch on for the first hop', async () => {
    v4.handler = (_request, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    };
    expect(await send(`http://127.0.0.1:${v4.port}/`, true)).toEqual({
      ok: false,
      retryable: true,
      code: 'WEBHOOK_REDIRECT',
      status: 302,
      text: '',
    });
    expect(v4.requests).toHaveLength(1);
  });

  it('checks again on every attempt: no connection is reused across attempts', async () => {
    await send(`http://127.0.0.1:${v4.port}/`, true);
    await send(`http://127.0.0.1:${v4.port}/`, true);
    expect(v4.connections).toBe(2);
    expect(await send(`http://127.0.0.1:${v4.port}/`)).toEqual(FORBIDDEN);
    expect(v4.connections).toBe(2);
  });
});
