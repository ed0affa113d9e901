import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Form, SpamReason } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeStamps } from '../../services/ingest/src/spam/time-trap.ts';
import { TEST_PASSWORD } from '../harness/accounts.ts';
import { createBrowserSession } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';
import { totpCode } from '../harness/totp.ts';
import { ingestClient } from './ingest/ingest-client.ts';

const run = promisify(execFile);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/**
 * ADR 50 in embedded mode, end to end: `formgate secrets rotate`, a restart, what the old secrets signed still
 * verifies and new things are signed with the new ones; `formgate secrets retire`, a restart, the old ones refused.
 */
describe('secret rotation (embedded)', { timeout: 120_000 }, () => {
  const secretFile = (name: string) => readFileSync(join(app.dataDir, name), 'utf8').trim();
  // One CLI call is a new Node process (tsx): seconds on a loaded 2-core machine.
  const cli = async (...args: string[]) =>
    JSON.parse(
      (
        await run('npx', ['tsx', 'packages/cli/src/main.ts', 'secrets', ...args], {
          env: { ...process.env, DATA_DIR: app.dataDir },
        })
      ).stdout,
    ) as Record<string, unknown>;
  const ops = (token: string) =>
    fetch(`${app.baseUrl}/api/ops/dead-letters`, { headers: { authorization: `Bearer ${token}` } });
  const stampOf = async (form: TestForm) =>
    ((await (await fetch(`${app.baseUrl}/f/${form.key}/timestamp`)).json()) as { value: string }).value;
  // A stamp passes the form's time-trap (1 s) only once that long has passed since it was issued: the CLI calls and
  // restarts in between usually take longer, not always.
  const oldEnough = (issuedAt: number) => new Promise((r) => setTimeout(r, Math.max(0, issuedAt + 1_100 - Date.now())));
  const submitWith = async (form: TestForm, stamp: string) => {
    const client = ingestClient(app);
    const id = await client.acceptedId(
      await client.postForm(form.key, `message=hi&_formgate_ts=${encodeURIComponent(stamp)}`),
    );
    return eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(got.status).toBe(200);
      return (got.body as unknown as { spamReasons: SpamReason[] }).spamReasons.map((r) => `${r.layer}/${r.rule}`);
    });
  };

  it('keeps old tokens and stamps valid through a rotation, signs new ones with the new secrets, refuses old ones once retired', async () => {
    const form = await app.createForm({ name: 'Rotating', settings: { spam: { timeTrapSeconds: 1 } } });
    const oldToken = secretFile('operator-token');
    const oldIngest = secretFile('ingest-secret');
    expect((await ops(oldToken)).status).toBe(200);
    const oldStamp = await stampOf(form);
    const oldStampAt = Date.now();
    const browser = await app.accounts.signUp();
    expect((await browser.call('GET', '/api/auth/get-session')).body?.user?.email).toBe(browser.email);
    // A member with two-factor: its secret is encrypted with auth-secret.
    const enabled = await browser.call('POST', '/api/auth/two-factor/enable', { password: TEST_PASSWORD });
    const { totpURI } = enabled.body as { totpURI: string };
    expect(
      (await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(totpURI) })).status,
    ).toBe(200);
    const signInWithCode = async () => {
      const again = createBrowserSession(app.baseUrl);
      await again.call('POST', '/api/auth/sign-in/email', { email: browser.email, password: TEST_PASSWORD });
      const verified = await again.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(totpURI) });
      return verified.status;
    };

    const rotated = await cli('rotate', '--all');
    expect(JSON.stringify(rotated)).not.toContain(oldToken);
    expect(rotated.rotated).toContainEqual(expect.objectContaining({ name: 'operator-token', previousKept: true }));
    expect(rotated.rotated).toContainEqual(expect.objectContaining({ name: 'auth-secret', previousKept: true }));
    const newToken = secretFile('operator-token');
    expect(newToken).not.toBe(oldToken);
    expect(JSON.stringify(rotated)).not.toContain(newToken);
    await app.restart();

    // Both tokens open the operator API; a stamp issued before the rotation still passes the time-trap.
    expect((await ops(newToken)).status).toBe(200);
    expect((await ops(oldToken)).status).toBe(200);
    await oldEnough(oldStampAt);
    expect(await submitWith(form, oldStamp)).toEqual([]);
    // Session cookies are signed with the current secret only: a rotated auth-secret signs the browser out, while
    // organization API keys (the harness's `api` calls) keep working, and so does two-factor.
    expect((await browser.call('GET', '/api/auth/get-session')).body).toBeNull();
    expect(await signInWithCode()).toBe(200);
    // A new stamp is signed with the new secret only.
    const newStamp = await stampOf(form);
    const newStampAt = Date.now();
    const formRef = { id: form.id } as Form;
    expect(createTimeStamps(secretFile('ingest-secret')).open(formRef, newStamp)).toBeTypeOf('number');
    expect(createTimeStamps(oldIngest).open(formRef, newStamp)).toBeUndefined();

    const retired = await cli('retire', '--all');
    expect(retired.retired).toContainEqual({ name: 'operator-token', hadPrevious: true });
    expect(retired.retired).toContainEqual({ name: 'auth-secret', hadPrevious: true });
    await app.restart();
    // The start after the rotation encrypted the two-factor secret again with the new auth-secret: retiring the old
    // one locks nobody out.
    expect(await signInWithCode()).toBe(200);

    const refused = await ops(oldToken);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    expect((await ops(newToken)).status).toBe(200);
    expect(await submitWith(form, oldStamp)).toEqual(['time-trap/forged']);
    await oldEnough(newStampAt);
    expect(await submitWith(form, newStamp)).toEqual([]);
  });
});

/**
 * `formgate secrets generate` (distributed mode): new values and the rotation steps on stdout, nothing else. It knows
 * no current value, so none may appear in what it prints, whether from the environment or from DATA_DIR's files.
 */
describe('secrets generate (distributed)', { timeout: 60_000 }, () => {
  const NAMES = [
    'IDENTITY_SECRET',
    'INGEST_SECRET',
    'FILE_LINK_SECRET',
    'NOTIFICATIONS_LINK_SECRET',
    'OPERATOR_TOKEN',
    'PRIVACY_KEY',
  ];
  // Current values a pod's environment would hold, all different from anything generated.
  const current = Object.fromEntries(
    [...NAMES, 'AUTH_SECRET'].map((n) => [n, `current-${n.toLowerCase()}-value-0123456789`]),
  );
  // Node with tsx's loader, not npx: npx writes warnings of its own to stderr, which must stay empty.
  const generate = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'packages/cli/src/main.ts', 'secrets', 'generate', ...args], {
      env: { ...process.env, ...current, DATA_DIR: app.dataDir },
    });
  const secretFiles = () =>
    Object.fromEntries(
      readdirSync(app.dataDir)
        .filter((f) => /secret|token/.test(f))
        .map((f) => [f, readFileSync(join(app.dataDir, f), 'utf8')]),
    );

  it('prints a fresh 32-byte base64url value per signing secret, the windows and steps, and no current value', async () => {
    const before = secretFiles();
    expect(Object.keys(before)).toContain('operator-token');
    const runs = [await generate(), await generate()];
    const all = [...NAMES, 'AUTH_SECRET'].sort();
    const values: string[] = [];
    for (const { stdout, stderr } of runs) {
      expect(stderr).toBe('');
      const printed = JSON.parse(stdout) as {
        values: Record<string, string>;
        keepPreviousFor: Record<string, string>;
        steps: string[];
      };
      expect(Object.keys(printed).sort()).toEqual(['keepPreviousFor', 'steps', 'values']);
      expect(Object.keys(printed.values).sort()).toEqual(all);
      for (const value of Object.values(printed.values)) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      values.push(...Object.values(printed.values));
      expect(Object.keys(printed.keepPreviousFor).sort()).toEqual(all.map((n) => `${n}_PREVIOUS`));
      expect(printed.steps.join('\n')).toContain('NAME_PREVIOUS');
      // Only new values: nothing of the environment's current secrets, nor of DATA_DIR's secret files.
      for (const secret of [...Object.values(current), ...Object.values(before).map((v) => v.trim())]) {
        expect(stdout).not.toContain(secret);
      }
    }
    expect(new Set(values).size).toBe(2 * all.length);
    // It writes nothing: DATA_DIR's secret files are as they were.
    expect(secretFiles()).toEqual(before);

    const one = JSON.parse((await generate('--name', 'OPERATOR_TOKEN')).stdout) as { values: Record<string, string> };
    expect(Object.keys(one.values)).toEqual(['OPERATOR_TOKEN']);
    expect(values).not.toContain(one.values.OPERATOR_TOKEN);

    const unknown = await generate('--name', 'DATABASE_PASSWORD').catch((e) => e);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('Unknown secret "DATABASE_PASSWORD"');
  });
});
