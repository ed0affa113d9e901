import { Agent, createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { createLogger } from '@formgate/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createRawProxy } from '../src/raw-proxy.ts';
import { createUpstreamPool } from '../src/upstreams.ts';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Server[] = [];
const agent = new Agent({ keepAlive: true });
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const listen = (server: Server) =>
  new Promise<string>((resolve) => {
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });

/** An upstream that records what reached it and answers 303 with two cookies and a hop-by-hop header. */
async function upstream(name: string, seen: Seen[]) {
  return listen(
    createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(303, {
        location: `/thanks?from=${name}`,
        'set-cookie': ['a=1', 'b=2'],
        'proxy-authenticate': 'Basic realm="upstream"',
        'x-upstream': name,
      });
      res.end();
    }),
  );
}

async function proxyTo(urls: string[]) {
  const logger = createLogger({ level: 'silent', name: 'test' });
  const proxy = createRawProxy({
    pool: createUpstreamPool('ingest', urls, { logger }),
    agent,
    logger,
    timeoutMs: 5_000,
  });
  return listen(
    createServer((req, res) =>
      proxy(req, res, { 'x-forwarded-for': '203.0.113.7', 'x-formgate-client-ip': '203.0.113.7' }),
    ),
  );
}

describe('the raw ingest proxy', () => {
  it('streams the request and the answer, rewriting only host, forwarding and hop-by-hop headers', async () => {
    const seen: Seen[] = [];
    const proxy = await proxyTo([await upstream('one', seen)]);
    // node:http, not fetch: fetch refuses to send a Connection header.
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${proxy}/f/abc?x=1`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          // A client may drop its own hop-by-hop headers, never the ones the gateway sets.
          connection: 'keep-alive, x-hop, x-forwarded-for, x-formgate-client-ip',
          'x-hop': 'drop me',
          'x-kept': 'keep me',
        },
      });
      req.on('response', resolve).on('error', reject);
      req.end('email=a%40b.example&message=hi');
    });
    res.resume();
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/thanks?from=one');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['proxy-authenticate']).toBeUndefined();
    const [got] = seen;
    expect(got).toMatchObject({ method: 'POST', url: '/f/abc?x=1', body: 'email=a%40b.example&message=hi' });
    expect(got?.headers).toMatchObject({
      'x-kept': 'keep me',
      'x-forwarded-for': '203.0.113.7',
      'x-formgate-client-ip': '203.0.113.7',
      'x-forwarded-proto': 'http',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(got?.headers['x-hop']).toBeUndefined();
    expect(got?.headers['x-forwarded-host']).toBe(new URL(proxy).host);
  });

  it('round-robins over the instances', async () => {
    const seen: Seen[] = [];
    const proxy = await proxyTo([await upstream('one', seen), await upstream('two', seen)]);
    const from = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy}/f/abc`, { method: 'POST', redirect: 'manual', body: 'a=1' });
      from.push(res.headers.get('x-upstream'));
    }
    expect(from).toEqual(['one', 'two', 'one', 'two']);
  });

  it('answers 503 with Retry-After when the instance cannot be reached', async () => {
    const gone = await listen(createServer());
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
    const proxy = await proxyTo([gone]);
    const res = await fetch(`${proxy}/f/abc`, { method: 'POST', body: 'a=1' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('frames the upstream body itself: a Connection header cannot smuggle a second request to ingest', async () => {
    const seen: Seen[] = [];
    const proxy = await proxyTo([await upstream('one', seen)]);
    const smuggled = 'POST /f/victim HTTP/1.1\r\nHost: ingest\r\nContent-Length: 3\r\n\r\na=1';
    for (const framing of [
      `Connection: content-length\r\nContent-Length: ${smuggled.length}`,
      'Connection: transfer-encoding\r\nTransfer-Encoding: chunked',
    ]) {
      const body = framing.includes('chunked')
        ? `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`
        : smuggled;
      const answer = await raw(
        proxy,
        `GET /form/submission-received HTTP/1.1\r\nHost: gw\r\n${framing}\r\n\r\n${body}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 303/);
    }
    // Give a smuggled request time to arrive, were there one.
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /form/submission-received',
      'GET /form/submission-received',
    ]);
    expect(seen.map((s) => s.body)).toEqual([smuggled, smuggled]);
  });

  it('keeps reading a body answered early (413) instead of resetting the client still sending it', async () => {
    // An instance that refuses at once, as ingest does with a body over its limit, and drops the rest.
    const refusing = await listen(
      createServer((req, res) => {
        res.writeHead(413, { 'content-type': 'application/json' }).end('{"errors":[{"code":"PAYLOAD_TOO_LARGE"}]}');
        req.resume();
      }),
    );
    const proxy = await proxyTo([refusing]);
    const { hostname, port } = new URL(proxy);
    const total = 2 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const outcome = await new Promise<{ answer: string; sent: number; closedEarly: boolean }>((resolve) => {
      let answer = '';
      let sent = 0;
      const socket = connect(Number(port), hostname, () => {
        socket.write(`POST /f/big HTTP/1.1\r\nHost: gw\r\nContent-Length: ${total}\r\n\r\n`);
        socket.write(chunk);
        sent += chunk.length;
      });
      let closedEarly = false;
      socket.on('error', () => {
        closedEarly = true;
      });
      socket.on('close', () => {
        if (sent < total) closedEarly = true;
        resolve({ answer, sent, closedEarly });
      });
      socket.on('data', (d) => {
        const first = answer === '';
        answer += d.toString('latin1');
        if (!first) return;
        // The answer came while the body is still being sent: send the rest, a chunk every few ms.
        const more = setInterval(() => {
          if (socket.destroyed) return clearInterval(more);
          if (sent >= total) {
            clearInterval(more);
            setTimeout(() => socket.end(), 50);
            return;
          }
          socket.write(chunk);
          sent += chunk.length;
        }, 5);
      });
    });
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(outcome.closedEarly).toBe(false);
    expect(outcome.sent).toBe(total);
  });

  it('survives a request without a Host header (HTTP/1.0)', async () => {
    const seen: Seen[] = [];
    const proxy = await proxyTo([await upstream('one', seen)]);
    const answer = await raw(proxy, 'POST /f/abc HTTP/1.0\r\nContent-Length: 3\r\n\r\na=1');
    expect(answer).toMatch(/^HTTP\/1\.[01] 303/);
    expect(seen[0]?.headers['x-forwarded-host']).toBeUndefined();
    expect((await fetch(`${proxy}/f/abc`, { method: 'POST', redirect: 'manual', body: 'a=1' })).status).toBe(303);
  });
});

/** Sends `text` on a fresh TCP connection and resolves with the first response's bytes. */
function raw(base: string, text: string) {
  const { hostname, port } = new URL(base);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}
