import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { STAND_IN_HEADER } from '../../harness/api-recorder.ts';
import { startLoad } from './generator.ts';

let server: Server | undefined;
const serve = async (handler: (req: IncomingMessage, res: ServerResponse, attempt: number) => void) => {
  const attempts = new Map<string, number>();
  server = createServer((req, res) => {
    const key = String(req.headers['idempotency-key']);
    const n = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, n);
    // Made-up answers: not Formgate's, so the API recorder leaves them out (api-recorder.ts).
    res.setHeader(STAND_IN_HEADER, '1');
    req.resume();
    req.on('end', () => handler(req, res, n));
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const address = server.address();
  return { baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, attempts };
};
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});
const ok = (res: ServerResponse, id: string) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, id }));

describe('the ledger generator', () => {
  it('retries 503s and resets with the same key, honouring Retry-After, until acked', async () => {
    const { baseUrl } = await serve((req, res, attempt) => {
      if (attempt === 1) return void res.writeHead(503, { 'retry-after': '1' }).end();
      if (attempt === 2) return void req.socket.destroy();
      ok(res, `id-${req.headers['idempotency-key']}`);
    });
    const started = Date.now();
    const result = await startLoad({ baseUrl, formKey: 'f', runId: 'r', count: 20, connections: 5 }).done;
    expect(result.entries.map((e) => e.outcome)).toEqual(Array(20).fill('acked'));
    expect(result.entries[0]).toMatchObject({ key: 'r-000000', id: 'id-r-000000' });
    expect(new Set(result.entries.map((e) => e.attempts.join(',')))).toEqual(new Set(['503,ECONNRESET,200']));
    // Four rounds of five connections, each waiting the second Retry-After asked for.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
  });

  it('gives up on a 4xx at once and on silence after maxAttempts timeouts: unknown, never acked', async () => {
    const { baseUrl, attempts } = await serve((req, res) => {
      if (req.headers['idempotency-key'] === 'r-000000') res.writeHead(400).end('{"error":"bad"}');
      // Others are never answered.
    });
    const load = startLoad({
      baseUrl,
      formKey: 'f',
      runId: 'r',
      count: 2,
      connections: 2,
      maxAttempts: 2,
      attemptTimeoutMs: 300,
    });
    const result = await load.done;
    expect(result.entries.map((e) => [e.outcome, e.attempts])).toEqual([
      ['unknown', ['400']],
      ['unknown', ['TIMEOUT', 'TIMEOUT']],
    ]);
    expect(attempts.get('r-000001')).toBe(2);
    expect(load.progress()).toEqual({ finished: 2, acked: 0 });
  });

  it('a 2xx without a submission id is not an ack; nothing is sent after the deadline', async () => {
    const { baseUrl } = await serve((_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), 100);
    });
    const result = await startLoad({ baseUrl, formKey: 'f', runId: 'r', count: 50, connections: 1, deadlineMs: 350 })
      .done;
    const outcomes = result.entries.map((e) => e.outcome);
    expect(outcomes.filter((o) => o === 'acked')).toEqual([]);
    expect(result.entries[0]?.attempts).toEqual(['200-without-id']);
    expect(outcomes.filter((o) => o === 'unsent').length).toBeGreaterThan(40);
  });

  it('sends to loopback only', () => {
    expect(() =>
      startLoad({ baseUrl: 'http://example.com', formKey: 'f', runId: 'r', count: 1, connections: 1 }),
    ).toThrow(/loopback only/);
  });
});
