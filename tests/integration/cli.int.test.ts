import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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

  it('refuses forms commands without an API key, and says how to get one', async () => {
    const env = { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_API_KEY: '' };
    const failure = await run('npx', ['tsx', 'packages/cli/src/main.ts', 'forms', 'list'], { env }).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('FORMGATE_API_KEY');
  });
});
