import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/http-server.ts';
import { createReadiness, startedCheck } from '../src/readiness.ts';
import { withReadyz } from '../src/serve.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('readiness', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('is ready only when every check passes, names the one that failed, and reports each change once', async () => {
    const changes: [string, boolean, string?][] = [];
    const readiness = createReadiness({
      cacheMs: 0,
      onChange: (name, ok, err) => changes.push(ok ? [name, ok] : [name, ok, (err as Error).message]),
    });
    const started = startedCheck('views not replayed');
    readiness.register('started', started.check);
    readiness.register('bus', async () => {});
    expect(await readiness.report()).toEqual({
      ready: false,
      checks: [
        { name: 'started', ok: false, error: 'failed' },
        { name: 'bus', ok: true },
      ],
    });
    await readiness.report();
    started.started();
    expect((await readiness.report()).ready).toBe(true);
    expect(changes).toEqual([
      ['started', false, 'views not replayed'],
      ['started', true],
    ]);
  });

  it('bounds a hanging check by its timeout, and calls it again only once it settled', async () => {
    let calls = 0;
    const readiness = createReadiness({ timeoutMs: 50, cacheMs: 0 });
    readiness.register('mongo:forms', () => {
      calls++;
      return new Promise<void>(() => {}); // never answers
    });
    const t0 = Date.now();
    const r = await readiness.report();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(r.checks).toEqual([{ name: 'mongo:forms', ok: false, error: 'timed out after 50 ms' }]);
    await readiness.report();
    expect(calls).toBe(1);
  });

  it('shares one round of checks between the probes of one cache window', async () => {
    let calls = 0;
    const readiness = createReadiness({ cacheMs: 60_000 });
    readiness.register('bus', async () => {
      calls++;
      await sleep(20);
    });
    await Promise.all(Array.from({ length: 50 }, () => readiness.report()));
    await readiness.report();
    expect(calls).toBe(1);
  });

  it('answers GET /readyz with 200, 503 naming the failed check (not its error), and 503 draining after drain()', async () => {
    const readiness = createReadiness({ cacheMs: 0 });
    let busUp = true;
    readiness.register('bus', () => {
      if (!busUp) throw new Error('connect ECONNREFUSED 10.1.2.3:9092');
    });
    server = createServer(withReadyz(readiness, (_req, res) => void res.end('app')));
    const url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;

    const ok = await fetch(`${url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ready', checks: [{ name: 'bus', ok: true }] });
    expect(await (await fetch(`${url}/other`)).text()).toBe('app');

    busUp = false;
    const down = await fetch(`${url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      status: 'not-ready',
      checks: [{ name: 'bus', ok: false, error: 'failed' }],
    });

    busUp = true;
    readiness.drain();
    const draining = await fetch(`${url}/readyz`);
    expect(draining.status).toBe(503);
    expect(((await draining.json()) as { status: string }).status).toBe('draining');
  });
});
