import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually, freePort } from '@formgate/kit/testing';
import { extractLinks } from '@formgate/mail';
import { startSmtpTestServer } from '@formgate/mail/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createOrgKeys } from '../harness/accounts.ts';
import { PROCESS_LOG_DIR, type RunningProcess, startProcess, stopProcess } from '../harness/processes.ts';
import { type OwnBackend, prepareOwnBackend } from '../reliability/faults/backend-faults.ts';

/** This file's own servers, started after the processes: Kafka on 29560 (+1 controller), FerretDB on 29570 (+1). */
const KAFKA_PORT = 29560;
const FERRETDB_PORT = 29570;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;
const running = (p: RunningProcess) => p.child.exitCode === null && p.child.signalCode === null;

const readyz = async (p: RunningProcess) => {
  const res = await fetch(`${p.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks: { name: string; ok: boolean }[] } };
};
const failing = async (p: RunningProcess) => (await readyz(p)).body.checks.filter((c) => !c.ok).map((c) => c.name);
const untilReady = (p: RunningProcess, timeoutMs: number) =>
  eventually(async () => expect((await readyz(p)).status).toBe(200), timeoutMs);
/** The process's log (kept whole in `PROCESS_LOG_DIR`, appended across runs) from where this run began. */
const logOf = (name: string) => {
  const file = resolve(PROCESS_LOG_DIR, `${name}.log`);
  const from = existsSync(file) ? statSync(file).size : 0;
  return () => readFileSync(file).subarray(from).toString();
};
/** The boot's "waiting for kafka/mongodb" warnings in a log. */
const waitWarnings = (log: string) => log.split('\n').filter((l) => l.includes('"msg":"waiting for ')).length;

/**
 * Issue 28: a distributed process started while Kafka and the Mongo-wire server are not there yet stays up — alive on
 * `/healthz`, not ready on `/readyz`, 503 with `Retry-After` to the API — and becomes ready by itself once they
 * start; the same when they go away later and come back. No supervisor restarts anything here.
 */
describe('distributed processes started before their backends', () => {
  let kafka: OwnBackend;
  let ferretdb: OwnBackend;
  let smtp: Awaited<ReturnType<typeof startSmtpTestServer>>;
  const processes: RunningProcess[] = [];
  const deployment = randomBytes(4).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const env = () => ({
    KAFKA_BROKERS: kafka.url,
    KAFKA_TOPIC_PREFIX: `boot-${deployment}.`,
    MONGO_URL: ferretdb.url,
    MONGO_DB_PREFIX: `fg_boot_${deployment}`,
    IDENTITY_SECRET: secret,
  });
  const start = async (name: string, entry: string, more: Record<string, string> = {}) => {
    const p = await startProcess(name, entry, { ...env(), INSTANCE_ID: name, ...more }, 'alive');
    processes.push(p);
    return p;
  };

  beforeAll(async () => {
    [kafka, ferretdb, smtp] = await Promise.all([
      prepareOwnBackend('kafka', KAFKA_PORT),
      prepareOwnBackend('ferretdb', FERRETDB_PORT),
      startSmtpTestServer(),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopProcess(p)));
    await Promise.allSettled([kafka?.stop(), ferretdb?.stop(), smtp?.stop()]);
  }, 180_000);

  it('SIGTERM while waiting for the backends stops the process at once, exit code 0', async () => {
    const forms = await start('boot-forms-sigterm', 'services/forms/src/main.ts', {
      FILE_LINK_SECRET: secret,
      PRIVACY_KEY: secret,
    });
    await sleep(4_000); // past the first failed attempt: it waits before the next
    const began = Date.now();
    await stopProcess(forms);
    expect(forms.child.exitCode, forms.output()).toBe(0);
    expect(Date.now() - began).toBeLessThan(5_000);
  }, 60_000);

  it('alive and not ready without backends, ready on its own once they start, and again after they vanish', async () => {
    const [formsLog, gatewayLog] = [logOf('boot-forms'), logOf('boot-gateway')];
    const began = Date.now();
    const forms = await start('boot-forms', 'services/forms/src/main.ts', {
      FILE_LINK_SECRET: secret,
      PRIVACY_KEY: secret,
    });
    const publicPort = await freePort();
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const gateway = await start('boot-gateway', 'gateway/src/main.ts', {
      PORT: String(publicPort),
      PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
      AUTH_SECRET: randomBytes(32).toString('base64url'),
      SMTP_URL: smtp.url,
      FORMS_URL: forms.url,
      INGEST_URL: nowhere,
      BILLING_URL: nowhere,
      ORGS_URL: nowhere,
    });
    const aliveS = seconds(began);
    expect(aliveS).toBeLessThan(30);

    // Alive, not ready, and the API answers 503 with Retry-After in the API's envelope.
    for (const p of [forms, gateway]) {
      expect(await (await fetch(`${p.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await readyz(p)).status).toBe(503);
    }
    const early = await fetch(`${gateway.url}/api/v1/forms`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(((await early.json()) as { error: { code: string } }).error.code).toBe('UPSTREAM_UNAVAILABLE');
    // Several attempts later, still there, and `/readyz` names what is awaited.
    await sleep(10_000);
    expect(running(forms) && running(gateway), forms.output() + gateway.output()).toBe(true);
    expect(await failing(forms)).toEqual(expect.arrayContaining(['started', 'bus', 'stores']));
    // One warning per ~10 s of waiting (and one when what is awaited changes), not one per attempt.
    const warnings = [waitWarnings(formsLog()), waitWarnings(gatewayLog())];
    for (const n of warnings) expect(n).toBeGreaterThan(0);
    for (const n of warnings) expect(n).toBeLessThan(5);

    const backendsAt = Date.now();
    await Promise.all([ferretdb.start(), kafka.start()]);
    const backendsS = seconds(backendsAt);
    const upAt = Date.now();
    await Promise.all([untilReady(forms, 120_000), untilReady(gateway, 120_000)]);
    const readyS = seconds(upAt);

    // A request through the gateway, to the forms service: sign up (mail over SMTP), an org, its key, a form.
    const mailLink = async (email: string, subject: RegExp) => {
      const mail = await smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject), 30_000);
      const [link] = extractLinks(mail.text);
      if (!link) throw new Error(`no link in "${mail.subject}"`);
      return link;
    };
    const apiKey = await createOrgKeys(createAccounts(gateway.url, mailLink))('boot');
    const api = (method: string, body?: unknown) =>
      fetch(`${gateway.url}/api/v1/forms`, {
        method,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await api('POST', { name: 'Booted' })).status).toBe(201);

    // The backends vanish: the processes stay, alive and not ready; they come back and the API works again.
    await Promise.all([kafka.kill9(), ferretdb.kill9()]);
    await eventually(async () => expect((await readyz(forms)).status).toBe(503), 30_000);
    await sleep(5_000);
    expect(running(forms) && running(gateway), forms.output() + gateway.output()).toBe(true);
    expect((await fetch(`${forms.url}/healthz`)).status).toBe(200);
    await Promise.all([ferretdb.start(), kafka.start()]);
    const backAt = Date.now();
    await Promise.all([untilReady(forms, 120_000), untilReady(gateway, 120_000)]);
    const readyAgainS = seconds(backAt);
    await eventually(async () => expect((await api('GET')).status).toBe(200), 60_000);
    process.stderr.write(
      `[boot] alive ${aliveS} s after spawn; backends started in ${backendsS} s; ready ${readyS} s after that; ` +
        `ready ${readyAgainS} s after the backends' return; forms/gateway waiting warnings ${warnings.join('/')}\n`,
    );
  }, 600_000);
});
