import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
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

const caller: Caller = { via: 'api-key', keyId: 'k1', orgId: 'org-1', scope: 'read', roles: ['member'] };
const accounts = {
  authHandler: async () => new Response(null, { status: 404 }),
  authenticate: async () => caller,
  routes: Router(),
} satisfies Pick<Accounts, 'authHandler' | 'authenticate' | 'routes'>;

async function gatewayFor(targets: { forms: string[]; billing: string[] }) {
  const gateway = createGateway({
    targets: { forms: { kind: 'http', urls: targets.forms }, billing: { kind: 'http', urls: targets.billing } },
    accounts,
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
