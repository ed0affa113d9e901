import { Agent, createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHttpServer, createLogger, drainServer, listen } from '@formgate/kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiProxy } from '../src/api-proxy.ts';
import { createUpstreamPool } from '../src/upstreams.ts';

const servers: Server[] = [];
const agent = new Agent({ keepAlive: true });
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const urlOf = async (server: Server) => {
  servers.push(server);
  return `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
};

/** An upstream whose event streams the test drives: `streams` holds each open one's response. */
async function streamingUpstream() {
  const streams: ServerResponse[] = [];
  const closed: ServerResponse[] = [];
  const url = await urlOf(
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write(': stream open\n\n');
      res.on('close', () => closed.push(res));
      streams.push(res);
    }),
  );
  return { url, streams, closed };
}

async function gatewayTo(url: string) {
  const logger = createLogger({ level: 'silent', name: 'test' });
  const proxy = createApiProxy({
    pool: createUpstreamPool('notifications', [url], { logger }),
    agent,
    logger,
    timeoutMs: 5_000,
  });
  const server = createHttpServer((req, res) => proxy(req, res, {}, (error) => res.writeHead(error.status).end()));
  return { server, url: await urlOf(server) };
}

/** Opens a stream through the gateway; `ended` says how the client saw it end. */
async function open(url: string) {
  const res = await new Promise<IncomingMessage>((resolve) => get(`${url}/api/v1/events`, resolve));
  const ended = new Promise<'ended' | 'cut'>((resolve) => {
    res.on('end', () => resolve('ended'));
    res.on('error', () => resolve('cut'));
    res.resume();
  });
  return { res, ended };
}

describe('an event stream through the gateway', () => {
  it('ends for its client when the instance ends it', async () => {
    const upstream = await streamingUpstream();
    const stream = await open((await gatewayTo(upstream.url)).url);
    upstream.streams[0]?.end();
    expect(await stream.ended).toBe('ended');
  });

  it('is cut for its client when the instance’s connection is cut', async () => {
    const upstream = await streamingUpstream();
    const stream = await open((await gatewayTo(upstream.url)).url);
    upstream.streams[0]?.destroy();
    expect(await stream.ended).toBe('cut');
  });

  it('is ended by a draining gateway, which then stops at once and lets go of the instance', async () => {
    const upstream = await streamingUpstream();
    const gateway = await gatewayTo(upstream.url);
    const stream = await open(gateway.url);
    const started = Date.now();
    await drainServer(gateway.server);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await stream.ended).toBe('ended');
    await vi.waitFor(() => expect(upstream.closed).toHaveLength(1));
  });
});
