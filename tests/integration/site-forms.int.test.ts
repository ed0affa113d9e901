import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SITE_ORG } from '@formgate/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

type Site = { forms: { example: string | null; waitlist: string | null; feedback: string | null } };
type FormDto = { id: string; slug: string; endpoint: string };

describe('the site forms are provisioned in the instance’s own organization (ADR 23)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.stop());

  const site = async () => (await (await fetch(`${app.baseUrl}/api/v1/site`)).json()) as Site;

  it('on a fresh boot lists three distinct endpoints; a waitlist submission is stored and read by the first verified user', async () => {
    const { forms } = await site();
    expect(forms.example).toMatch(/^\/f\/[A-Za-z0-9_-]+$/);
    expect(forms.waitlist).toMatch(/^\/f\/[A-Za-z0-9_-]+$/);
    expect(forms.feedback).toMatch(/^\/f\/[A-Za-z0-9_-]+$/);
    expect(new Set([forms.example, forms.waitlist, forms.feedback]).size).toBe(3);

    await app.waitForForm(String(forms.waitlist).slice(3));
    const posted = await fetch(`${app.baseUrl}${forms.waitlist}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ email: 'early@example.test' }),
    });
    expect(posted.status).toBe(200);

    // The first user to verify an account owns the site organization.
    const first = await app.accounts.signUp();
    const orgs = (await first.call('GET', '/api/auth/organization/list')).body as { id: string; slug: string }[];
    expect(orgs.map((o) => o.slug)).toEqual([SITE_ORG.slug]);
    expect(
      (await first.call('POST', '/api/auth/organization/set-active', { organizationId: SITE_ORG.id })).status,
    ).toBe(200);
    expect((await first.call('GET', '/api/auth/organization/get-active-member')).body.role).toBe('owner');
    const list = (await first.call('GET', '/api/v1/forms')).body as { data: FormDto[] };
    expect(list.data.map((f) => f.slug).sort()).toEqual(['example', 'feedback', 'waitlist']);
    const waitlist = list.data.find((f) => f.slug === 'waitlist') as FormDto;
    expect(waitlist.endpoint).toBe(forms.waitlist);
    await eventually(async () => {
      const subs = (await first.call('GET', `/api/v1/forms/${waitlist.id}/submissions`)).body as {
        data: { fields: { name: string; value: string }[] }[];
      };
      expect(subs.data.map((s) => s.fields)).toEqual([[{ name: 'email', value: 'early@example.test' }]]);
    });
    // The example form stays apart from the waitlist.
    const example = list.data.find((f) => f.slug === 'example') as FormDto;
    const exampleSubs = (await first.call('GET', `/api/v1/forms/${example.id}/submissions`)).body as {
      data: unknown[];
    };
    expect(exampleSubs.data).toEqual([]);

    // A second user does not become an owner of it.
    const second = await app.accounts.signUp();
    expect((await second.call('GET', '/api/auth/organization/list')).body).toEqual([]);

    // A restart provisions nothing twice: the same endpoints, still three forms.
    await app.restart();
    expect((await site()).forms).toEqual(forms);
    const again = (await first.call('GET', '/api/v1/forms')).body as { data: FormDto[] };
    expect(again.data).toHaveLength(3);
    expect((await first.call('GET', '/api/auth/organization/list')).body).toHaveLength(1);

    // The operator makes the second user an owner too, through the CLI and the operator API.
    const env = {
      ...process.env,
      FORMGATE_URL: app.baseUrl,
      FORMGATE_OPERATOR_TOKEN: readFileSync(join(app.dataDir, 'operator-token'), 'utf8').trim(),
    };
    const cli = async (...args: string[]) =>
      JSON.parse((await promisify(execFile)('npx', ['tsx', 'packages/cli/src/main.ts', ...args], { env })).stdout);
    expect(await cli('site', 'owner', second.email)).toEqual({ email: second.email, outcome: 'added' });
    expect(await cli('site', 'owner', second.email)).toEqual({ email: second.email, outcome: 'unchanged' });
    expect(
      (await second.call('POST', '/api/auth/organization/set-active', { organizationId: SITE_ORG.id })).status,
    ).toBe(200);
    expect((await second.call('GET', '/api/auth/organization/get-active-member')).body.role).toBe('owner');
    const unknown = await fetch(`${app.baseUrl}/api/ops/site/owners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.FORMGATE_OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.test' }),
    });
    expect(unknown.status).toBe(404);
  }, 90_000);
});

describe('SITE_* settings win over the provisioned forms', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ SITE_WAITLIST_FORM: 'https://forms.example/waitlist', SITE_EXAMPLE_FORM: 'ex4mple' });
  });
  afterAll(() => app?.stop());

  it('answers the env endpoints where set, the provisioned one elsewhere', async () => {
    const { forms } = (await (await fetch(`${app.baseUrl}/api/v1/site`)).json()) as Site;
    expect(forms.waitlist).toBe('https://forms.example/waitlist');
    expect(forms.example).toBe('/f/ex4mple');
    expect(forms.feedback).toMatch(/^\/f\/[A-Za-z0-9_-]+$/);
  });
});
