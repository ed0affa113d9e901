import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';

const run = promisify(execFile);

describe('the embedded app serves the dashboard', () => {
  let app: RunningProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-web-data-'));
  const webDir = mkdtempSync(join(tmpdir(), 'fg-web-dist-'));
  beforeAll(async () => {
    await run('pnpm', ['exec', 'vite', 'build', '--outDir', webDir, '--emptyOutDir', '--logLevel', 'error'], {
      cwd: join(import.meta.dirname, '../../web'),
    });
    app = await startProcess('web-app', 'hosts/embedded/src/main.ts', {
      DATA_DIR: dataDir,
      WEB_DIR: webDir,
      SITE_FEEDBACK_FORM: 'fbk123',
      SITE_PLAN_PRICE: '$9',
      // The built-in plans, not the harness's roomy ones: /api/v1/site shows the default plan's limits.
      PLANS_FILE: '',
    });
  }, 120_000);
  afterAll(async () => {
    await stopProcess(app);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(webDir, { recursive: true, force: true });
  });

  it.each(['/', '/dashboard/forms/x/settings', '/login?redirect=%2Fdashboard', '/no/such/page'])(
    'GET %s answers the app HTML, never cached',
    async (path) => {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const html = await res.text();
      expect(html).toContain('<div id="root"></div>');
      expect(html).toContain('<meta name="robots" content="index, follow"');
      expect(html).toContain('<title>Formgate</title>');
    },
  );

  it('serves hashed assets with a year-long immutable cache', async () => {
    const asset = readdirSync(join(webDir, 'assets')).find((f) => f.endsWith('.js'));
    const res = await fetch(`${app.url}/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('leaves /api, /f and /form to their handlers', async () => {
    const api = await fetch(`${app.url}/api/v1/nope`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const ingest = await fetch(`${app.url}/f/unknown-form`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ email: 'a@example.com' }),
    });
    expect(ingest.status).toBe(404);
    expect(await ingest.text()).not.toContain('<div id="root">');
    const thanks = await fetch(`${app.url}/form/submission-received?referer=not-a-url`);
    expect(thanks.status).toBe(400);
  });

  it('answers the public site configuration', async () => {
    const res = await fetch(`${app.url}/api/v1/site`);
    expect(res.status).toBe(200);
    // SITE_FEEDBACK_FORM wins; the other two are the forms provisioned in the site organization (ADR 23).
    expect(await res.json()).toEqual({
      productName: 'Formgate',
      plans: [{ id: 'standard', name: 'Standard', price: '$9', submissionsPerMonth: 100, emailsPerMonth: 100 }],
      forms: {
        feedback: '/f/fbk123',
        waitlist: expect.stringMatching(/^\/f\//),
        example: expect.stringMatching(/^\/f\//),
      },
    });
  });
});
