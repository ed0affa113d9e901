import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AuditEntryDto } from '@formgate/contracts';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../harness/accounts.ts';
import { type BrowserSession, createBrowserSession } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { totpCode } from '../harness/totp.ts';

const run = promisify(execFile);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/** The CLI as a user runs it; never throws on its exit code. */
async function cli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout } = await run('npx', ['tsx', 'packages/cli/src/main.ts', ...args], {
      env: { ...process.env, FORMGATE_URL: app.baseUrl, ...env },
    });
    return { code: 0, out: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: JSON.parse(e.stdout) };
  }
}

const signIn = async (email: string, password = TEST_PASSWORD) => {
  const browser = createBrowserSession(app.baseUrl);
  const reply = await browser.call('POST', '/api/auth/sign-in/email', { email, password });
  return { browser, reply };
};

const auditLog = async (owner: BrowserSession, query = '') => {
  const entries: AuditEntryDto[] = [];
  let cursor: string | null = null;
  do {
    const page = await owner.call(
      'GET',
      `/api/v1/orgs/audit-log?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    entries.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return entries;
};

describe('the audit log (issue 32)', { timeout: 120_000 }, () => {
  it('records who did what: sign-ins and failures, two-factor, API keys, roles, plans, exports and erasures', async () => {
    const owner = await app.accounts.signUp();
    const org = await app.accounts.createOrg(owner);
    const member = await app.accounts.addMember(owner, org, 'member');
    const roles = await owner.call('GET', '/api/auth/organization/get-full-organization');
    const memberId = roles.body.members.find((m: { user: { email: string } }) => m.user.email === member.email).id;
    await owner.call('POST', '/api/auth/organization/update-member-role', { memberId, role: 'admin' });

    expect((await signIn(owner.email, 'not the password')).reply.status).toBe(401);
    await signIn(owner.email);
    const enabled = await owner.call('POST', '/api/auth/two-factor/enable', { password: TEST_PASSWORD });
    await owner.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(enabled.body.totpURI) });
    const challenged = await signIn(owner.email);
    await challenged.browser.call('POST', '/api/auth/two-factor/verify-totp', { code: '000000' });
    await challenged.browser.call('POST', '/api/auth/two-factor/verify-totp', {
      code: await totpCode(enabled.body.totpURI),
    });

    const signedIn = challenged.browser;
    expect(
      (await signedIn.call('POST', '/api/auth/two-factor/generate-backup-codes', { password: TEST_PASSWORD })).status,
    ).toBe(200);
    expect((await signedIn.call('POST', '/api/auth/two-factor/disable', { password: TEST_PASSWORD })).status).toBe(200);

    const key = await owner.call('POST', '/api/v1/api-keys', { name: 'ci', scope: 'write' });
    await owner.call('DELETE', `/api/v1/api-keys/${key.body.id}`);
    const form = (await owner.call('POST', '/api/v1/forms', { name: 'Audited' })).body;
    expect((await owner.call('GET', `/api/v1/forms/${form.id}/submissions/export?format=json`)).status).toBe(200);
    expect((await owner.call('POST', '/api/v1/subject-access', { email: 'someone@example.com' })).status).toBe(200);
    expect((await owner.call('POST', '/api/v1/erasures', { email: 'someone@example.com' })).status).toBe(201);
    const token = readFileSync(join(app.dataDir, 'operator-token'), 'utf8').trim();
    const granted = await fetch(`${app.baseUrl}/api/ops/orgs/${org.id}/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro' }),
    });
    expect(granted.status).toBe(200);

    const expected = [
      'organization.created',
      'member.added',
      'invitation.created',
      'invitation.accepted',
      'member.role-updated',
      'user.sign-in-failed',
      'user.signed-in',
      'two-factor.enabled',
      'two-factor.backup-codes-regenerated',
      'two-factor.disabled',
      'api-key.created',
      'api-key.revoked',
      'export.created',
      'erasure.completed',
      'plan.changed',
    ];
    const log = await eventually(async () => {
      const entries = await auditLog(owner);
      expect([...new Set(entries.map((e) => e.type))]).toEqual(expect.arrayContaining(expected));
      expect(entries.filter((e) => e.type === 'user.signed-in').map((e) => e.data.method)).toEqual(
        expect.arrayContaining(['password', 'two-factor']),
      );
      expect(
        entries
          .filter((e) => e.type === 'user.sign-in-failed')
          .map((e) => e.data.reason)
          .sort(),
      ).toEqual(['password', 'two-factor']);
      expect(
        entries
          .filter((e) => e.type === 'export.created')
          .map((e) => e.data.kind)
          .sort(),
      ).toEqual(['subject-access', 'submissions']);
      return entries;
    }, 15_000);
    const ownerActor = { userId: expect.any(String), email: owner.email };
    expect(log.find((e) => e.type === 'api-key.created')).toMatchObject({
      actor: ownerActor,
      data: { keyId: key.body.id, name: 'ci', scope: 'write' },
    });
    expect(log.find((e) => e.type === 'user.sign-in-failed' && e.data.reason === 'password')).toMatchObject({
      actor: null,
      data: { email: owner.email },
    });
    expect(log.find((e) => e.type === 'plan.changed')).toMatchObject({
      data: { plan: 'pro', status: 'active', source: 'operator' },
    });
    expect(log.find((e) => e.type === 'export.created' && e.data.kind === 'submissions')).toMatchObject({
      actor: ownerActor,
      data: { formId: form.id, format: 'json' },
    });
    // Nothing of a secret: the key, the password, the address erased.
    const text = JSON.stringify(log);
    for (const secret of [key.body.key, TEST_PASSWORD, 'someone@example.com']) expect(text).not.toContain(secret);
    // The member's own actions (accepting the invitation), and only theirs, by the actor filter.
    const byMember = await auditLog(owner, `&actor=${encodeURIComponent(member.email)}`);
    expect(byMember.length).toBeGreaterThan(0);
    expect(byMember.every((e) => e.actor?.email === member.email)).toBe(true);
    const failures = await auditLog(owner, '&type=user.sign-in-failed');
    expect(failures.map((e) => e.type)).toEqual(['user.sign-in-failed', 'user.sign-in-failed']);
  });

  it('verifies with `formgate audit verify`, and names the entry once a row was altered', async () => {
    const owner = await app.accounts.signUp();
    const org = await app.accounts.createOrg(owner);
    const key = await app.accounts.createApiKey(owner, 'write');
    await app.accounts.addMember(owner, org, 'member');
    const entries = await eventually(async () => {
      const log = await auditLog(owner);
      expect(log.length).toBeGreaterThanOrEqual(5);
      return log;
    }, 15_000);

    const good = await cli({ FORMGATE_API_KEY: key }, 'audit', 'verify');
    expect(good.code).toBe(0);
    expect(good.out.organizations).toEqual([
      { orgId: org.id, ok: true, entries: entries.length, head: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);

    // The output kept outside Formgate anchors the next run: the log may grow, never lose what it showed.
    const kept = join(app.dataDir, '..', `audit-verify-${org.id}.json`);
    writeFileSync(kept, JSON.stringify(good.out));
    await app.accounts.addMember(owner, org, 'member');
    const grown = await eventually(async () => {
      const log = await auditLog(owner);
      // The invitation, its acceptance and the membership.
      expect(log.length).toBe(entries.length + 3);
      return log;
    }, 15_000);
    const since = await cli({ FORMGATE_API_KEY: key }, 'audit', 'verify', '--since', kept);
    expect(since.code).toBe(0);
    expect(since.out.organizations[0]).toMatchObject({ ok: true, entries: grown.length });
    // Someone with the database cuts the log back to before that run: intact alone, not against the kept head.
    const db0 = openSqlite(join(app.dataDir, 'orgs.db'));
    try {
      db0.prepare('DELETE FROM audit_log WHERE org_id = ? AND seq > ?').run(org.id, entries.length - 2);
    } finally {
      db0.close();
    }
    expect((await cli({ FORMGATE_API_KEY: key }, 'audit', 'verify')).code).toBe(0);
    const cut = await cli({ FORMGATE_API_KEY: key }, 'audit', 'verify', '--since', kept);
    expect(cut.code).toBe(1);
    expect(cut.out.organizations[0]).toMatchObject({
      ok: false,
      entries: entries.length - 2,
      reason: `the chain ends at entry ${entries.length - 2}: entries ${entries.length - 1}–${entries.length}, recorded earlier, are gone`,
    });

    // Someone with the database rewrites who was added (the chain is not recomputed).
    // The owner's own membership (the oldest such entry, not among those cut off above), rewritten as an admin's.
    const altered = entries.findLast((e) => e.type === 'member.added' && e.seq > 1) as AuditEntryDto;
    expect(altered.seq).toBeLessThanOrEqual(entries.length - 2);
    const db = openSqlite(join(app.dataDir, 'orgs.db'));
    try {
      db.prepare('UPDATE audit_log SET data = ? WHERE id = ?').run(
        JSON.stringify({ ...altered.data, role: 'admin' }),
        altered.id,
      );
    } finally {
      db.close();
    }
    const bad = await cli({ FORMGATE_API_KEY: key }, 'audit', 'verify');
    expect(bad.code).toBe(1);
    expect(bad.out.organizations[0]).toMatchObject({
      ok: false,
      seq: altered.seq,
      id: altered.id,
      entries: altered.seq - 1,
      reason: `entry ${altered.seq} was changed after it was written`,
    });

    const token = readFileSync(join(app.dataDir, 'operator-token'), 'utf8').trim();
    const all = await cli({ FORMGATE_OPERATOR_TOKEN: token }, 'audit', 'verify', '--all');
    expect(all.code).toBe(1);
    const verdicts = all.out.organizations as { orgId: string; ok: boolean }[];
    expect(verdicts.find((v) => v.orgId === org.id)?.ok).toBe(false);
    expect(verdicts.filter((v) => v.orgId !== org.id).every((v) => v.ok)).toBe(true);
  });
});
