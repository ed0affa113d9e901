import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BillingUsageDto } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

const run = promisify(execFile);
const PASSWORD = 'a long enough password';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

// Each CLI call is a new Node process (tsx): seconds each on a loaded 2-core machine.
describe('the operator CLI', { timeout: 90_000 }, () => {
  it('signs up, mints an organization API key, and drives forms and submissions with it', async () => {
    const base = { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_PASSWORD: PASSWORD };
    const cli = async (env: NodeJS.ProcessEnv, ...args: string[]) =>
      JSON.parse((await run('npx', ['tsx', 'packages/cli/src/main.ts', ...args], { env })).stdout) as Record<
        string,
        unknown
      > & { data: { id: string }[] };

    await cli(base, 'account', 'signup', '--email', 'cli@example.test');
    const link = await waitForMailLink(app.dataDir, 'cli@example.test', /verify/i);
    expect((await fetch(link.replace('//localhost:', '//127.0.0.1:'), { redirect: 'manual' })).status).toBe(302);
    const created = await cli(base, 'account', 'create-key', '--email', 'cli@example.test', '--org-name', 'CLI Co');
    expect(created).toMatchObject({ scope: 'write', name: 'cli' });
    expect(String(created.key)).toMatch(/^fg_/);

    const keyed = { ...base, FORMGATE_API_KEY: String(created.key) };
    const form = await cli(keyed, 'forms', 'create', '--name', 'From CLI', '--redirect', 'https://site.example/ok');
    expect(form).toMatchObject({
      name: 'From CLI',
      slug: 'from-cli',
      settings: { redirectUrl: 'https://site.example/ok' },
    });
    expect((await cli(keyed, 'forms', 'list')).data.map((f) => f.id)).toContain(form.id);
    await app.waitForForm(String(form.key));
    await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'from=cli',
    });
    await eventually(
      async () => expect((await cli(keyed, 'submissions', 'list', '--form', String(form.id))).data).toHaveLength(1),
      10_000,
    );
  });

  it('shows consumer lag back at 0 after a burst, and sets an organization’s plan so its limits rise', async () => {
    const token = readFileSync(join(app.dataDir, 'operator-token'), 'utf8').trim();
    const env = { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_OPERATOR_TOKEN: token };
    const cli = async (e: NodeJS.ProcessEnv, ...args: string[]) =>
      (await run('npx', ['tsx', 'packages/cli/src/main.ts', ...args], { env: e })).stdout;
    const ops = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${app.baseUrl}/api/ops${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const org = 'plan-org';
    const form = await app.createForm({ name: 'Burst' }, org);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${app.baseUrl}/f/${form.key}`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body: `i=${i}`,
        }),
      ),
    );
    await eventually(async () => expect((await ops('GET', '/consumer-lag')).body.total).toBe(0), 15_000);
    const lag = (await ops('GET', '/consumer-lag?group=forms.submission-received')).body as {
      data: { group: string; partition: number; committed: string | null; end: string; lag: number }[];
    };
    expect(lag.data.map((r) => r.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(lag.data.reduce((n, r) => n + Number(r.end), 0)).toBeGreaterThanOrEqual(40);
    for (const r of lag.data) expect(r.committed ?? '0').toBe(r.end);
    const printed = await cli(env, 'lag', '--group', 'forms.submission-received');
    expect(printed).toMatch(/^GROUP\s+TOPIC\s+PARTITION\s+COMMITTED\s+END\s+LAG/);
    expect(printed).toContain('forms.submission-received  ingest.submission');
    expect(printed).not.toContain('billing.usage');
    expect(printed.trim().endsWith('total lag: 0')).toBe(true);

    const usage = async () =>
      (await app.api('GET', '/api/v1/billing/usage', undefined, org)).body as unknown as BillingUsageDto;
    expect((await usage()).plan.id).toBe('free');
    const listed = (await ops('GET', '/orgs')).body.data as { id: string; slug: string; name: string }[];
    const { id: orgId, slug } = listed.find((o) => o.name === org) as { id: string; slug: string };
    const granted = JSON.parse(await cli(env, 'orgs', 'set-plan', slug, 'pro'));
    expect(granted).toMatchObject({ orgId: orgId, slug, plan: 'pro' });
    await eventually(async () => {
      const u = await usage();
      expect(u.plan.id).toBe('pro');
      expect(u.submissions.max).toBe(100_000);
      expect(u.subscription?.status).toBe('active');
    }, 10_000);

    const badPlan = await ops('PUT', `/orgs/${orgId}/plan`, { plan: 'platinum' });
    expect(badPlan.status).toBe(400);
    expect(badPlan.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    const unknownOrg = await ops('PUT', '/orgs/no-such-org/plan', { plan: 'pro' });
    expect(unknownOrg.status).toBe(404);
    expect(unknownOrg.body.error).toMatchObject({ code: 'NOT_FOUND' });
    const wrongToken = await cli(
      { ...env, FORMGATE_OPERATOR_TOKEN: 'not-the-token' },
      'orgs',
      'set-plan',
      slug,
      'free',
    ).catch((e) => e);
    expect(wrongToken.code).toBe(2);
    expect(wrongToken.stderr).toContain('401 UNAUTHENTICATED');
    expect((await usage()).plan.id).toBe('pro');

    // The default plan ends the grant: no subscription, the default limits again.
    expect((await ops('PUT', `/orgs/${orgId}/plan`, { plan: 'free' })).status).toBe(200);
    await eventually(async () => {
      const u = await usage();
      expect(u.plan.id).toBe('free');
      expect(u.submissions.max).toBe(50_000);
      expect(u.subscription).toBeNull();
    }, 10_000);
  });

  it('sweeps stray files on demand, as the operator only (a dry run counts them)', async () => {
    const token = readFileSync(join(app.dataDir, 'operator-token'), 'utf8').trim();
    const env = { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_OPERATOR_TOKEN: token };
    const cli = async (...args: string[]) =>
      JSON.parse((await run('npx', ['tsx', 'packages/cli/src/main.ts', ...args], { env })).stdout);
    // Every file here is younger than a day: none is judged yet.
    expect(await cli('files', 'sweep', '--dry-run')).toEqual({ skipped: false, scanned: 0, strays: 0, deleted: 0 });
    expect(await cli('files', 'sweep')).toEqual({ skipped: false, scanned: 0, strays: 0, deleted: 0 });
    const refused = await fetch(`${app.baseUrl}/api/ops/files/sweep`, { method: 'POST' });
    expect(refused.status).toBe(401);
    // The forms service's route is not reachable through the gateway's API.
    const internal = await fetch(`${app.baseUrl}/internal/files/sweep`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(internal.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses forms commands without an API key, and says how to get one', async () => {
    const env = { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_API_KEY: '' };
    const failure = await run('npx', ['tsx', 'packages/cli/src/main.ts', 'forms', 'list'], { env }).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('FORMGATE_API_KEY');
  });
});
