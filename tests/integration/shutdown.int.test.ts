import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';

/**
 * SIGTERM on a real embedded process (`pnpm start`'s entry point): readiness turns 503 at once, a request in flight
 * (its body still arriving) completes, and the process exits 0 within its deadline (docs/operations.md).
 */
describe('graceful shutdown (embedded process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-shutdown-'));
  let app: RunningProcess | undefined;
  afterAll(async () => {
    if (app) await stopProcess(app, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('flips /readyz to 503, finishes the in-flight request, then exits 0 within SHUTDOWN_TIMEOUT_MS', {
    timeout: 90_000,
  }, async () => {
    app = await startProcess('shutdown-embedded', 'hosts/embedded/src/main.ts', {
      DATA_DIR: dataDir,
      SHUTDOWN_DELAY_MS: '600',
      SHUTDOWN_TIMEOUT_MS: '10000',
    });
    const { url, child } = app;
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: expect.arrayContaining([{ name: 'bus', ok: true }]),
    });

    // A sign-up whose body arrives in two parts, the second after SIGTERM.
    const email = `drain-${randomUUID()}@example.test`;
    const body = JSON.stringify({ email, password: 'correct horse battery staple', name: 'drain' });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), origin: url },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 1_000);
    });
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<{ code: number | null; at: number }>((r) =>
      child.once('exit', (code) => r({ code, at: Date.now() })),
    );
    const signalledAt = Date.now();
    child.kill('SIGTERM');

    await new Promise((r) => setTimeout(r, 100));
    const draining = await fetch(`${url}/readyz`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toMatchObject({ status: 'draining' });

    const answer = await inFlight;
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ user: { email } });

    const { code, at } = await exited;
    expect(code, app.output()).toBe(0);
    expect(at - signalledAt).toBeLessThan(10_000);
    expect(app.output()).toMatch(/formgate stopped/);
  });

  it('exits 1 with a log line when a request holds the drain past SHUTDOWN_TIMEOUT_MS', {
    timeout: 90_000,
  }, async () => {
    app = await startProcess('shutdown-deadline', 'hosts/embedded/src/main.ts', {
      DATA_DIR: mkdtempSync(join(dataDir, 'deadline-')),
      SHUTDOWN_TIMEOUT_MS: '500',
    });
    const { url, child } = app;
    // A body that never completes: the drain cannot finish.
    const req = request(`${url}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '1000', origin: url },
    });
    req.on('error', () => {});
    req.write('{"email":');
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(app.output()).toMatch(/shutdown deadline passed/);
    req.destroy();
  });
});
