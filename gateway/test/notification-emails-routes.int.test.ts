import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Accounts, Caller } from '@formgate/accounts';
import { createIdentityCodec, createLogger, IDENTITY_HEADER } from '@formgate/kit';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../src/create-gateway.ts';

const servers: Server[] = [];
const listen = (server: Server) =>
  new Promise<string>((resolve) => {
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });

describe('the notification-emails routes at the gateway', () => {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  let caller: Caller | null = null;
  let url: string;
  let close: () => void;

  beforeAll(async () => {
    const notifications = await listen(
      createServer((req, res) => {
        seen.push({ url: req.url ?? '', headers: req.headers });
        if (req.url?.startsWith('/api/v1/notification-emails/verify')) {
          res.writeHead(303, { location: 'https://forms.example/dashboard/emails/verification-success/a%40b.example' });
          return void res.end();
        }
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

  it('forwards the verification link without credentials, and its redirect back unchanged', async () => {
    caller = null;
    const res = await fetch(`${url}/api/v1/notification-emails/verify?token=abc.def`, {
      redirect: 'manual',
      headers: { cookie: 'formgate.session_token=secret', [IDENTITY_HEADER]: 'forged' },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      'https://forms.example/dashboard/emails/verification-success/a%40b.example',
    );
    const forwarded = seen.at(-1);
    expect(forwarded?.url).toBe('/api/v1/notification-emails/verify?token=abc.def');
    expect(forwarded?.headers[IDENTITY_HEADER]).toBeUndefined();
    expect(forwarded?.headers.cookie).toBeUndefined();
  });

  it('needs an identity to list, and organization:update to add or remove', async () => {
    caller = null;
    expect((await fetch(`${url}/api/v1/notification-emails`)).status).toBe(401);
    caller = { via: 'api-key', keyId: 'k1', orgId: 'org-1', scope: 'write', roles: ['member'] };
    const before = seen.length;
    expect((await fetch(`${url}/api/v1/notification-emails`)).status).toBe(200);
    const post = await fetch(`${url}/api/v1/notification-emails`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.example' }),
    });
    expect(post.status).toBe(403);
    expect((await fetch(`${url}/api/v1/notification-emails/x1`, { method: 'DELETE' })).status).toBe(403);
    expect(seen.length).toBe(before + 1);
    caller = { ...caller, roles: ['admin'] };
    expect((await fetch(`${url}/api/v1/notification-emails/x1`, { method: 'DELETE' })).status).toBe(200);
    expect(seen.at(-1)?.url).toBe('/api/v1/notification-emails/x1');
  });
});
