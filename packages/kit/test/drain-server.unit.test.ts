import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, listen } from '../src/http-server.ts';
import { drainServer, endOnDrain } from '../src/open-connections.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function serve(handler: Parameters<typeof createHttpServer>[0]) {
  const server = createHttpServer(handler);
  const port = await listen(server, 0, '127.0.0.1');
  cleanups.push(() => server.closeAllConnections());
  return { server, port };
}

const timed = async (work: Promise<void>) => {
  const started = Date.now();
  await work;
  return Date.now() - started;
};

describe('drainServer', () => {
  it('closes a connection that never sent a request, instead of waiting for its headers timeout', async () => {
    const { server, port } = await serve((_req, res) => res.end());
    const socket = connect(port, '127.0.0.1');
    cleanups.push(() => socket.destroy());
    await new Promise((r) => socket.once('connect', r));
    expect(await timed(drainServer(server))).toBeLessThan(1_000);
  });

  it('waits for a request in flight, and ends a stream marked endOnDrain', async () => {
    let slow: ServerResponse | undefined;
    const { server, port } = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      if (req.url === '/stream') endOnDrain(res);
      else slow = res;
    });
    const answers = ['/stream', '/slow'].map((path) =>
      fetch(`http://127.0.0.1:${port}${path}`).then((res) => res.text()),
    );
    await new Promise((r) => setTimeout(r, 100));
    let drained = false;
    const drain = drainServer(server).then(() => {
      drained = true;
    });
    expect(await answers[0]).toBe(': open\n\n');
    expect(drained).toBe(false);
    slow?.end('done');
    await drain;
    expect(await answers[1]).toBe(': open\n\ndone');
  });
});
