import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Accounts, Caller } from '@formgate/accounts';
import { createIdentityCodec, createLogger } from '@formgate/kit';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../src/create-gateway.ts';

const servers: Server[] = [];
const listen = (server: Server) =>
  new Promise<string>((resolve) => {
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });

describe('the webhook endpoint routes at the gateway', () => {
  const seen: { method: string; url: string }[] = [];
  let caller: Caller | null = null;
  let url: string;
  let close: () => void;

  beforeAll(async () => {
    const notifications = await listen(
      createServer((req, res) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '' });
        // A made-up answer: marked so the API conformance check skips it (ADR 52).
        res.writeHead(200, { 'content-type': 'application/json', 'x-test-stand-in': '1' }).end('{"data":[]}');
      }),
    );
    const gateway = createGateway({
      targets: { notifications: { kind: 'http', urls: [notifications] } },
      accounts: {
        authHandler: async () => new Response(null, { status: 404 }),
        authenticate: async () => caller,
        routes: Router(),
      } satisfies Pick<Accounts, 'authHandler' | 'authenticate' | 'routes'>,
      signer: createIdentityCodec('a-secret-of-at-least-thirty-two-characters'),
      logger: createLogger({ level: 'silent', name: 'test' }),
      trustedOrigins: [],
      upstreamTimeoutMs: 2_000,
    });
    close = gateway.close;
    url = await listen(createServer(gateway.handle));
  });
  afterAll(async () => {
    close();
    await Promise.all(
      servers.map((s) => {
        s.closeAllConnections();
        return new Promise((r) => s.close(r));
      }),
    );
  });

  const call = (method: string, path: string) =>
    fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
    });
  const manage = [
    ['POST', '/api/v1/forms/f1/webhooks'],
    ['PATCH', '/api/v1/forms/f1/webhooks/w1'],
    ['DELETE', '/api/v1/forms/f1/webhooks/w1'],
    ['POST', '/api/v1/forms/f1/webhooks/w1/rotate-secret'],
  ] as const;

  it('needs an identity; members read; form:update manages; each reaches notifications unchanged', async () => {
    caller = null;
    expect((await call('GET', '/api/v1/forms/f1/webhooks')).status).toBe(401);
    caller = { via: 'api-key', keyId: 'k1', orgId: 'org-1', scope: 'write', roles: ['member'] };
    expect((await call('GET', '/api/v1/forms/f1/webhooks')).status).toBe(200);
    expect(seen.at(-1)).toEqual({ method: 'GET', url: '/api/v1/forms/f1/webhooks' });
    const before = seen.length;
    for (const [method, path] of manage)
      expect([method, path, (await call(method, path)).status]).toEqual([method, path, 403]);
    expect(seen.length).toBe(before);
    caller = { ...caller, roles: ['admin'] };
    for (const [method, path] of manage) {
      expect([method, path, (await call(method, path)).status]).toEqual([method, path, 200]);
      expect(seen.at(-1)).toEqual({ method, url: path });
    }
  });
});
