import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@formgate/kit';
import { freePort } from '@formgate/kit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createSettleAll } from '../src/settle.ts';

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
});
