import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';

const lines = (p: RunningProcess) =>
  p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the request log', () => {
  let app: RunningProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-reqlog-'));
  beforeAll(async () => {
    app = await startProcess('request-log', 'hosts/embedded/src/main.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await stopProcess(app);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes one line per API request with the route pattern, status, duration and request id, and no secrets', async () => {
    const secretKey = 'fg_thisIsNotAValidKeyButMustNeverBeLogged';
    const res = await fetch(`${app.url}/api/v1/forms/frm_123/submissions?limit=5`, {
      headers: { 'x-api-key': secretKey, 'x-request-id': 'req-log-test-1' },
    });
    expect(res.status).toBe(401);
    await fetch(`${app.url}/f/unknown-form`, { method: 'POST', body: 'email=ada@example.com' });

    const deadline = Date.now() + 5_000;
    while (!lines(app).some((l) => l.requestId === 'req-log-test-1') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const logged = lines(app).filter((l) => l.msg === 'api request');
    expect(logged.filter((l) => l.requestId === 'req-log-test-1')).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: '/api/v1/forms/:formId/submissions',
        status: 401,
        durationMs: expect.any(Number),
      }),
    ]);
    expect(logged.some((l) => String(l.route).startsWith('/f/'))).toBe(false);
    expect(app.output()).not.toContain(secretKey);
    expect(app.output()).not.toContain('ada@example.com');
  });
});
