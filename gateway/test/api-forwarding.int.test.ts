import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Accounts, Caller } from '@formgate/accounts';
import { createIdentityCodec, createLogger, IDENTITY_HEADER } from '@formgate/kit';
import { Router } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../src/create-gateway.ts';

const servers: Server[] = [];
const closers: (() => void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) c();
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

const listen = (server: Server) =>
  new Promise<string>((resolve) => {
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });

async function deadUrl() {
  const server = createServer();
  const url = await listen(server);
  servers.splice(servers.indexOf(server), 1);
  await new Promise((r) => server.close(r));
  return url;
}

/** A service instance that records the headers it received; `mute` never answers. */
async function service(seen: IncomingHttpHeaders[], mute = false) {
  return listen(
    createServer((req, res) => {
      seen.push(req.headers);
      // A made-up answer: marked so the API conformance check skips it (ADR 52).
      if (!mute) res.writeHead(200, { 'content-type': 'application/json', 'x-test-stand-in': '1' }).end('{"data":[]}');
    }),
  );
}

const reader: Caller = { via: 'api-key', keyId: 'k1', orgId: 'org-1', scope: 'read', roles: ['member'] };
const writer: Caller = { via: 'api-key', keyId: 'k2', orgId: 'org-1', scope: 'write', roles: ['owner'] };
const accountsOf = (caller: Caller) =>
  ({
    authHandler: async () => new Response(null, { status: 404 }),
    authenticate: async () => caller,
    routes: Router(),
  }) satisfies Pick<Accounts, 'authHandler' | 'authenticate' | 'routes'>;

async function gatewayFor(targets: { forms: string[]; billing: string[] }, caller = reader) {
  const gateway = createGateway({
    targets: { forms: { kind: 'http', urls: targets.forms }, billing: { kind: 'http', urls: targets.billing } },
    accounts: accountsOf(caller),
    signer: createIdentityCodec('a-secret-of-at-least-thirty-two-characters'),
    logger: createLogger({ level: 'silent', name: 'test' }),
    trustedOrigins: [],
    upstreamTimeoutMs: 400,
  });
  closers.push(gateway.close);
  return listen(createServer(gateway.handle));
}

describe('API calls through the upstream pools', () => {
  it('go to the live instance of a service whose other instance is dead, with the identity and without cookies', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await gatewayFor({ forms: [await deadUrl(), await service(seen)], billing: [await deadUrl()] });
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${url}/api/v1/forms`, {
        headers: { cookie: 'formgate.session_token=secret', 'x-request-id': `req-${i}` },
      });
      expect(res.status).toBe(200);
    }
    expect(seen).toHaveLength(4);
    expect(seen[0]?.cookie).toBeUndefined();
    expect(seen[0]?.[IDENTITY_HEADER]).toMatch(/^ey/);
    expect(seen.map((h) => h['x-request-id'])).toEqual(['req-0', 'req-1', 'req-2', 'req-3']);
    expect(seen[0]?.['x-forwarded-for']).toBe('127.0.0.1');
    const health = await (await fetch(`${url}/healthz`)).json();
    expect(health).toEqual({
      status: 'ok',
      upstreams: { forms: { healthy: 1, total: 2 }, billing: { healthy: 1, total: 1 } },
    });
  });

  it('forward the public plans to billing without any identity, whatever the client sends', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await gatewayFor({ forms: [await deadUrl()], billing: [await service(seen)] });
    const res = await fetch(`${url}/api/v1/plans`, {
      headers: { cookie: 'formgate.session_token=secret', [IDENTITY_HEADER]: 'eyForged', 'x-api-key': 'fg_forged' },
    });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.cookie).toBeUndefined();
    expect(seen[0]?.[IDENTITY_HEADER]).toBeUndefined();
  });

  it('answer 503 in the API envelope when no instance is left, and 504 when the only one does not answer', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await gatewayFor({ forms: [await deadUrl()], billing: [await service(seen, true)] });
    const unavailable = await fetch(`${url}/api/v1/forms`, { headers: { 'x-request-id': 'r-503' } });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('2');
    expect(await unavailable.json()).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE', requestId: 'r-503' } });

    const started = performance.now();
    const timedOut = await fetch(`${url}/api/v1/billing/usage`, { headers: { 'x-request-id': 'r-504' } });
    expect(timedOut.status).toBe(504);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await timedOut.json()).toMatchObject({ error: { code: 'UPSTREAM_TIMEOUT', requestId: 'r-504' } });
    expect(seen).toHaveLength(1);
  });
});

/** What one instance received: method, headers and body of each request, in order. */
interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An instance that reads every body whole; `drop(n)` says whether to cut the connection of the n-th request. */
async function recorder(received: Received[], drop: (n: number) => boolean = () => false) {
  return listen(
    createServer(async (req: IncomingMessage, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ method: req.method ?? '', headers: req.headers, body });
      if (drop(received.length)) return void req.socket.destroy();
      res.writeHead(201, { 'content-type': 'application/json', 'x-test-stand-in': '1' }).end('{"data":{}}');
    }),
  );
}

const createForm = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/forms`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('API calls with a body', () => {
  it('are sent whole to the next instance when one refuses the connection: the gateway holds the body', async () => {
    const received: Received[] = [];
    const body = JSON.stringify({ name: 'Contact', note: 'é'.repeat(20_000) });
    const url = await gatewayFor(
      { forms: [await deadUrl(), await recorder(received)], billing: [await deadUrl()] },
      writer,
    );
    for (let i = 0; i < 3; i++) expect((await createForm(url, body)).status).toBe(201);
    expect(received.map((r) => r.body)).toEqual([body, body, body]);
    expect(received[0]?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ upstreams: { forms: { healthy: 1 } } });
  });

  it('are framed by the gateway: a chunked body arrives with its length, and Connection cannot drop the identity', async () => {
    const received: Received[] = [];
    const url = new URL(await gatewayFor({ forms: [await recorder(received)], billing: [await deadUrl()] }, writer));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/v1/forms',
        headers: {
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
          connection: `keep-alive, ${IDENTITY_HEADER}, x-forwarded-for`,
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"name":');
      req.end('"Chunked"}');
    });
    expect(status).toBe(201);
    expect(received[0]?.body).toBe('{"name":"Chunked"}');
    expect(received[0]?.headers['content-length']).toBe('18');
    expect(received[0]?.headers['transfer-encoding']).toBeUndefined();
    expect(received[0]?.headers[IDENTITY_HEADER]).toMatch(/^ey/);
    expect(received[0]?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('are never sent twice once an instance took the body, unless they carry an Idempotency-Key', async () => {
    const received: Received[] = [];
    // The second request arrives on the pooled connection of the first, which the instance then cuts.
    const url = await gatewayFor(
      { forms: [await recorder(received, (n) => n === 2 || n === 4)], billing: [await deadUrl()] },
      writer,
    );
    expect((await createForm(url, '{"name":"One"}')).status).toBe(201);
    const cut = await createForm(url, '{"name":"Two"}', { 'x-request-id': 'r-cut' });
    expect(cut.status).toBe(503);
    expect(await cut.json()).toMatchObject({ error: { code: 'UPSTREAM_UNAVAILABLE', requestId: 'r-cut' } });
    expect(received.map((r) => r.body)).toEqual(['{"name":"One"}', '{"name":"Two"}']);

    expect((await createForm(url, '{"name":"Three"}')).status).toBe(201);
    const keyed = await createForm(url, '{"name":"Four"}', { 'idempotency-key': 'k-4' });
    expect(keyed.status).toBe(201);
    expect(received.slice(2).map((r) => r.body)).toEqual(['{"name":"Three"}', '{"name":"Four"}', '{"name":"Four"}']);
  });

  it('are refused with 413 above 1 MiB, before any instance sees them', async () => {
    const received: Received[] = [];
    const url = await gatewayFor({ forms: [await recorder(received)], billing: [await deadUrl()] }, writer);
    const res = await createForm(url, JSON.stringify({ name: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(received).toEqual([]);
  });
});
