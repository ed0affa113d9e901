import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SmtpTestServer, startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { type RecordedRequest, startWebhookRecorder } from '../harness/webhook-recorder.ts';

/**
 * `formgate canary` (docs/operations.md, "Canary"): the real CLI against an embedded Formgate that mails over SMTP
 * to a test server and calls real webhook receivers, one answering 200 and one answering 500.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = ['--import', 'tsx', 'packages/cli/src/main.ts', 'canary'];
const RECIPIENT = 'canary-inbox@example.com';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}
interface Check {
  check: string;
  status: string;
  ms: number | null;
  detail: string;
}
interface Result {
  runId: string;
  submissionId: string;
  ok: boolean;
  checks: Check[];
  cleanup: { ok: boolean; detail: string };
}

/** A webhook receiver that records every request and answers 500. */
async function startFailingReceiver() {
  const received: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.writeHead(500).end('down for the test');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('formgate canary', { timeout: 120_000 }, () => {
  let smtp: SmtpTestServer;
  let app: TestApp;
  let hooks: Awaited<ReturnType<typeof startWebhookRecorder>>;
  let failing: Awaited<ReturnType<typeof startFailingReceiver>>;
  let writeKey: string;
  let readKey: string;
  let dir: string;
  let healthy: { id: string; webhookId: string };
  let broken: { id: string; webhookId: string };

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': writeKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { data: { id: string }[] } };
  };
  const cli = (env: Record<string, string>, ...args: string[]): Promise<Outcome> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [...CLI, ...args],
        { cwd: ROOT, env: { ...process.env, FORMGATE_URL: app.baseUrl, ...env } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      );
    });
  /** A form for the canary, with a webhook endpoint to `url` and, when `mail`, the verified recipient. */
  const canaryForm = async (name: string, url: string, mail: boolean) => {
    const notifications = { emails: mail ? [RECIPIENT] : [] };
    const form = await app.createForm({ name, settings: { notifications } }, 'canary');
    const hook = await api('POST', `/api/v1/forms/${form.id}/webhooks`, { url });
    expect(hook.status).toBe(201);
    return { id: form.id, webhookId: String(hook.body.id) };
  };

  beforeAll(async () => {
    smtp = await startSmtpTestServer();
    const mailLink = (to: string, subject: RegExp) =>
      eventually(async () => {
        const mail = smtp.messages.filter((m) => m.to.includes(to) && subject.test(m.subject)).at(-1);
        const link = mail?.text.match(/https?:\/\/[^\s<>"]+/)?.[0];
        if (!link) throw new Error(`no "${subject}" mail for ${to} yet`);
        return link;
      });
    app = await startTestApp({ SMTP_URL: smtp.url, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, {}, mailLink);
    [hooks, failing] = await Promise.all([startWebhookRecorder(), startFailingReceiver()]);
    writeKey = await app.apiKey('canary');
    const owner = await app.accounts.signUp();
    await app.accounts.createOrg(owner, 'Canary read-only');
    readKey = await app.accounts.createApiKey(owner, 'read');
    expect((await api('POST', '/api/v1/notification-emails', { email: RECIPIENT })).status).toBe(201);
    const link = (await mailLink(RECIPIENT, /^Confirm /)).replace('//localhost:', '//127.0.0.1:');
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
    healthy = await canaryForm('Canary', `${hooks.url}/hook`, true);
    broken = await canaryForm('Canary with a failing webhook', failing.url, false);
    dir = mkdtempSync(join(tmpdir(), 'fg-canary-'));
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([hooks?.close(), failing?.close()]);
    await app?.stop();
    await smtp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes when the submission is stored, mailed and webhooked, writes its metrics, and deletes it', async () => {
    const metrics = join(dir, 'canary.prom');
    const out = await cli({ FORMGATE_API_KEY: writeKey }, '--form', healthy.id, '--metrics-file', metrics);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const runId = out.stdout.match(/^formgate canary ([0-9a-f-]{36}): form /)?.[1] ?? '';
    const lines = out.stdout.trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'stored passed',
      'mailed passed',
      'webhooked passed',
      'cleanup passed',
      'canary passed',
    ]);
    expect(lines[1]).toMatch(/^stored +passed +\d+ ms +submission \S+$/);
    expect(lines[2]).toMatch(/^mailed +passed +\d+ ms +1 delivery$/);
    expect(lines[3]).toMatch(/^webhooked +passed +\d+ ms +1 delivery$/);

    const mail = await smtp.waitFor((m) => m.to.includes(RECIPIENT) && m.text.includes(runId));
    expect(mail.subject).toBe('New submission to Canary');
    const created = hooks.received.filter((r) => r.body.includes(runId)).map((r) => JSON.parse(r.body).type);
    expect(created).toContain('submission.created');
    expect((await api('GET', `/api/v1/forms/${healthy.id}/submissions`)).body.data).toEqual([]);

    const text = readFileSync(metrics, 'utf8');
    const form = `form="${healthy.id}"`;
    expect(text).toContain(`formgate_canary_success{${form}} 1\n`);
    expect(text).toContain(`formgate_canary_cleanup_success{${form}} 1\n`);
    for (const check of ['stored', 'mailed', 'webhooked'])
      expect(text).toMatch(
        new RegExp(`^formgate_canary_duration_seconds\\{${form},check="${check}"\\} \\d+(\\.\\d+)?$`, 'm'),
      );
    expect(text).toMatch(new RegExp(`^formgate_canary_last_run_timestamp_seconds\\{${form}\\} \\d{10}$`, 'm'));
    expect(text).toContain('# TYPE formgate_canary_success gauge\n');
    expect(readdirSync(dir)).toEqual(['canary.prom']);
  });

  it('fails with exit code 1 when the webhook is not delivered by the deadline, and still deletes the submission', async () => {
    const metrics = join(dir, 'broken.prom');
    const args = ['--form', broken.id, '--deadline', '10s', '--metrics-file', metrics, '--json'];
    const out = await cli({ FORMGATE_API_KEY: writeKey }, ...args);
    expect(out.code).toBe(1);
    const result = JSON.parse(out.stdout) as Result;
    expect(result.ok).toBe(false);
    expect(result.checks.map((c) => [c.check, c.status])).toEqual([
      ['stored', 'passed'],
      ['mailed', 'skipped'],
      ['webhooked', 'failed'],
    ]);
    expect(result.checks[1]?.detail).toBe('the form lists no verified notification address (0 listed)');
    expect(result.checks[2]?.detail).toMatch(
      new RegExp(`^not within 10000 ms: webhook ${broken.webhookId}: retrying \\(\\d attempts?, last 500\\)$`),
    );
    expect(result.cleanup).toEqual({ ok: true, detail: `submission ${result.submissionId} deleted` });
    expect(failing.received.some((r) => r.body.includes(result.runId))).toBe(true);
    expect((await api('GET', `/api/v1/forms/${broken.id}/submissions`)).body.data).toEqual([]);

    const text = readFileSync(metrics, 'utf8');
    expect(text).toContain(`formgate_canary_success{form="${broken.id}"} 0\n`);
    expect(text).toContain(`formgate_canary_duration_seconds{form="${broken.id}",check="stored"}`);
    expect(text).not.toContain('check="webhooked"');
    expect(text).not.toContain('check="mailed"');
  });

  it('repeats with --every, rewriting the metrics file, until SIGTERM stops it cleanly', async () => {
    const metrics = join(dir, 'every.prom');
    const child = spawn(process.execPath, [...CLI, '--form', healthy.id, '--every', '1s', '--metrics-file', metrics], {
      cwd: ROOT,
      env: { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_API_KEY: writeKey },
    });
    let stdout = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await eventually(() => expect(stdout.match(/^canary passed$/gm)?.length).toBeGreaterThanOrEqual(2), 60_000);
    expect(readFileSync(metrics, 'utf8')).toContain(`formgate_canary_success{form="${healthy.id}"} 1\n`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/^formgate canary stopped: \d+ runs, 0 failed$/m);
    expect((await api('GET', `/api/v1/forms/${healthy.id}/submissions`)).body.data).toEqual([]);
  });

  it('refuses what it cannot run with exit code 2, before sending anything', async () => {
    const usage = [
      [{ FORMGATE_API_KEY: writeKey }, [], /needs --form <id>/],
      [{ FORMGATE_API_KEY: writeKey }, ['--form', healthy.id, '--deadline', '60'], /--deadline takes a duration/],
      [{ FORMGATE_API_KEY: writeKey }, ['--form', healthy.id, '--every', '0s'], /--every takes a duration/],
      [
        { FORMGATE_API_KEY: writeKey },
        ['--form', healthy.id, '--metrics-file', join(dir, 'no', 'x.prom')],
        /no directory/,
      ],
      [{ FORMGATE_API_KEY: readKey }, ['--form', healthy.id], /needs a write API key/],
      [{ FORMGATE_API_KEY: writeKey }, ['--form', 'frm_missing'], /No form frm_missing/],
      [{ FORMGATE_API_KEY: 'fg_not_a_key' }, ['--form', healthy.id], /FORMGATE_API_KEY was refused/],
    ] as const;
    const outcomes = await Promise.all(usage.map(([env, args]) => cli(env, ...args)));
    expect(outcomes.map((o) => o.code)).toEqual(usage.map(() => 2));
    outcomes.forEach((o, i) => {
      expect(o.stderr).toMatch(usage[i]?.[2] as RegExp);
    });
    expect((await api('GET', `/api/v1/forms/${healthy.id}/submissions`)).body.data).toEqual([]);
  });
});
