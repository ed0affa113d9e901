import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Accounts, Caller } from '@formgate/accounts';
import { SETTLE_HEADER } from '@formgate/contracts';
import { createIdentityCodec, createLogger } from '@formgate/kit';
import { freePort } from '@formgate/kit/testing';
import express, { Router } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../src/create-gateway.ts';
import { createSettleAll } from '../src/settle.ts';
import type { Target } from '../src/target.ts';

const settle = { view: 'form', id: 'form-1', version: 7 } as const;

/** An ingest instance's `/internal/settled` on `host`:`port`, answering `status` and recording what it was asked. */
async function instance(host: string, port: number, status: number) {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, asked, port: (server.address() as AddressInfo).port };
}

describe('the gateway settles a change of settings on every ingest instance', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  const logged: unknown[] = [];
  const logger = createLogger({ level: 'warn', name: 'test' });
  logger.warn = ((obj: unknown) => void logged.push(obj)) as typeof logger.warn;

  it('asks every address a peer name resolves to, skips one that refuses, and logs one still behind', async () => {
    const port = await freePort();
    const a = await instance('127.0.0.1', port, 204);
    const b = await instance('127.0.0.2', port, 503);
    servers.push(a.server, b.server);
    // ingest-peers resolves to three pods: two answer, the third (127.0.0.3) refuses connections.
    const resolve = async () => ['127.0.0.1', '127.0.0.2', '127.0.0.3'].map((address) => ({ address, family: 4 }));
    const settleAll = createSettleAll(
      { ingest: { kind: 'http', urls: ['http://ingest:1'], peers: [`http://ingest-peers:${port}`] } },
      logger,
      resolve,
    );
    logged.length = 0;
    await settleAll(settle);
    expect(a.asked).toEqual(['/internal/settled?of=form%3Aform-1%407']);
    expect(b.asked).toEqual(['/internal/settled?of=form%3Aform-1%407']);
    expect(logged).toEqual([{ settle, instance: `ingest http://127.0.0.2:${port}` }]);
  });

  it('in process: asks the service’s views, and logs when they did not get there', async () => {
    const asked: unknown[] = [];
    const settleAll = createSettleAll(
      {
        notifications: {
          kind: 'in-process',
          app: (() => {}) as never,
          settled: async (s) => {
            asked.push(s);
            return false;
          },
        },
      },
      logger,
    );
    logged.length = 0;
    await settleAll(settle);
    expect(asked).toEqual([settle]);
    expect(logged).toEqual([{ settle, instance: 'notifications (in process)' }]);
  });

  const caller: Caller = { via: 'api-key', keyId: 'k1', orgId: 'org-1', scope: 'write', roles: ['owner'] };
  const accounts = {
    authHandler: async () => new Response(null, { status: 404 }),
    authenticate: async () => caller,
    routes: Router(),
  } satisfies Pick<Accounts, 'authHandler' | 'authenticate' | 'routes'>;
  const listening = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  /** A PATCH of a form through a gateway over `targets`; the answer's status, header, body and when it came. */
  const patchThrough = async (targets: { forms: Target; ingest: Target }) => {
    const gateway = createGateway({
      targets,
      accounts,
      signer: createIdentityCodec('a-secret-of-at-least-thirty-two-characters'),
      logger: createLogger({ level: 'silent', name: 'test' }),
      trustedOrigins: [],
    });
    const url = await listening(createServer(gateway.handle));
    const started = Date.now();
    const res = await fetch(`${url}/api/v1/forms/form-1`, {
      method: 'PATCH',
      headers: { 'x-api-key': 'fg_test', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed' }),
    });
    const body = await res.text();
    gateway.close();
    return { status: res.status, settle: res.headers.get(SETTLE_HEADER), body, ms: Date.now() - started };
  };
  /** What forms answers a change with (a made-up answer: marked so the API conformance check skips it). */
  const changed = { 'content-type': 'application/json', 'x-test-stand-in': '1', [SETTLE_HEADER]: 'form:form-1@3' };

  it('holds a proxied answer that names a change until every ingest instance has it, and strips the header', async () => {
    const forms = await listening(createServer((_req, res) => res.writeHead(200, changed).end('{"id":"form-1"}')));
    const asked: string[] = [];
    const slowIngest = () =>
      listening(
        createServer((req, res) => {
          asked.push(req.url ?? '');
          setTimeout(() => res.writeHead(204).end(), 300);
        }),
      );
    const answer = await patchThrough({
      forms: { kind: 'http', urls: [forms] },
      ingest: { kind: 'http', urls: [await slowIngest(), await slowIngest()] },
    });
    expect(answer).toMatchObject({ status: 200, settle: null, body: '{"id":"form-1"}' });
    expect(answer.ms).toBeGreaterThanOrEqual(300);
    expect(asked).toEqual(Array(2).fill('/internal/settled?of=form%3Aform-1%403'));
  });

  it('holds an in-process service’s answer the same way until ingest’s views have the change', async () => {
    const forms = express();
    forms.patch('/api/v1/forms/:id', (_req, res) => void res.set(changed).json({ id: 'form-1' }));
    let settledAt = 0;
    const settled = async () => {
      await new Promise((r) => setTimeout(r, 300));
      settledAt = Date.now();
      return true;
    };
    const answer = await patchThrough({
      forms: { kind: 'in-process', app: forms },
      ingest: { kind: 'in-process', app: express(), settled },
    });
    expect(answer).toMatchObject({ status: 200, settle: null, body: '{"id":"form-1"}' });
    expect(answer.ms).toBeGreaterThanOrEqual(300);
    expect(settledAt).toBeGreaterThan(0);
  });
});
