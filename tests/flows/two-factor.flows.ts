import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../harness/accounts.ts';
import { type BrowserSession, createBrowserSession } from '../harness/browser-session.ts';
import { totpCode } from '../harness/totp.ts';
import type { TargetRef } from './target.ts';

/**
 * Two-factor sign-in (better-auth's two-factor plugin: TOTP and backup codes) and the organization setting that
 * requires it, through the gateway; run in both modes. Codes are computed by otplib from the URI the server gave.
 */
export function describeTwoFactorFlows(target: TargetRef) {
  /** Sets up TOTP on a signed-in account: the URI and backup codes, confirmed by a first code. */
  const enableTotp = async (browser: BrowserSession) => {
    const enabled = await browser.call('POST', '/api/auth/two-factor/enable', { password: TEST_PASSWORD });
    expect(enabled.status).toBe(200);
    const { totpURI, backupCodes } = enabled.body as { totpURI: string; backupCodes: string[] };
    const verified = await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(totpURI) });
    expect(verified.status).toBe(200);
    return { totpURI, backupCodes };
  };
  const signInFirstStep = async (email: string) => {
    const browser = createBrowserSession(target().baseUrl);
    const reply = await browser.call('POST', '/api/auth/sign-in/email', { email, password: TEST_PASSWORD });
    return { browser, reply };
  };
  const sessionOf = async (browser: BrowserSession) => (await browser.call('GET', '/api/auth/get-session')).body;

  describe('two-factor sign-in', () => {
    it('is set up with the password and a first code; then sign-in asks for a code before there is a session', async () => {
      const user = await target().accounts.signUp();
      const unconfirmed = await user.call('POST', '/api/auth/two-factor/enable', { password: 'not the password' });
      expect(unconfirmed.status).toBe(400);

      const { totpURI, backupCodes } = await enableTotp(user);
      expect(totpURI).toMatch(/^otpauth:\/\/totp\/Formgate:/);
      expect(backupCodes).toHaveLength(10);
      expect((await sessionOf(user)).user.twoFactorEnabled).toBe(true);

      const { browser, reply } = await signInFirstStep(user.email);
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ twoFactorRedirect: true });
      expect(await sessionOf(browser)).toBeNull();
      const wrong = await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: '000000' });
      expect(wrong.status).toBe(401);
      expect(await sessionOf(browser)).toBeNull();
      const right = await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(totpURI) });
      expect(right.status).toBe(200);
      expect((await sessionOf(browser)).user.email).toBe(user.email);
    });

    it('takes a backup code once instead of a code; removing two-factor needs the password', async () => {
      const user = await target().accounts.signUp();
      const { backupCodes } = await enableTotp(user);
      const code = backupCodes[0] as string;
      const first = await signInFirstStep(user.email);
      expect((await first.browser.call('POST', '/api/auth/two-factor/verify-backup-code', { code })).status).toBe(200);
      expect((await sessionOf(first.browser)).user.email).toBe(user.email);
      const again = await signInFirstStep(user.email);
      expect((await again.browser.call('POST', '/api/auth/two-factor/verify-backup-code', { code })).status).toBe(401);
      expect(await sessionOf(again.browser)).toBeNull();

      expect((await user.call('POST', '/api/auth/two-factor/disable', { password: 'wrong password!' })).status).toBe(
        400,
      );
      expect((await user.call('POST', '/api/auth/two-factor/disable', { password: TEST_PASSWORD })).status).toBe(200);
      const plain = await signInFirstStep(user.email);
      expect(plain.reply.body).not.toHaveProperty('twoFactorRedirect');
      expect((await sessionOf(plain.browser)).user.email).toBe(user.email);
    });

    it('ends a challenge after 5 wrong codes and locks the account after 10, even against the right code', async () => {
      const user = await target().accounts.signUp();
      const { totpURI } = await enableTotp(user);
      const sixTries = async () => {
        const { browser } = await signInFirstStep(user.email);
        const tries = [];
        for (let i = 0; i < 6; i++) {
          const r = await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: '000000' });
          tries.push(`${r.status} ${r.body?.code}`);
        }
        return tries;
      };
      const fiveMisses = Array(5).fill('401 INVALID_CODE');
      // The sixth try of a challenge finds it spent: the password is asked again.
      expect(await sixTries()).toEqual([...fiveMisses, '400 TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE']);
      // Ten misses in a row, whatever the challenge, lock the account for 15 minutes.
      expect(await sixTries()).toEqual([...fiveMisses, '429 ACCOUNT_TEMPORARILY_LOCKED']);
      const { browser } = await signInFirstStep(user.email);
      const locked = await browser.call('POST', '/api/auth/two-factor/verify-totp', { code: await totpCode(totpURI) });
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('ACCOUNT_TEMPORARILY_LOCKED');
      expect(await sessionOf(browser)).toBeNull();
    });
  });

  describe('account enumeration', () => {
    it('answers a wrong password and an unknown address alike, on sign-in, password reset and a second step without a challenge', async () => {
      const user = await target().accounts.signUp();
      await enableTotp(user);
      const unknown = `nobody-${Date.now()}@example.test`;
      const answer = async (path: string, body: unknown) => {
        const reply = await createBrowserSession(target().baseUrl).call('POST', path, body);
        return { status: reply.status, body: reply.body, cookies: reply.headers.getSetCookie().length };
      };
      expect(await answer('/api/auth/sign-in/email', { email: user.email, password: 'wrong password!' })).toEqual(
        await answer('/api/auth/sign-in/email', { email: unknown, password: 'wrong password!' }),
      );
      const reset = { redirectTo: '/reset-password' };
      expect(await answer('/api/auth/request-password-reset', { email: user.email, ...reset })).toEqual(
        await answer('/api/auth/request-password-reset', { email: unknown, ...reset }),
      );
      // Whether the account uses two-factor shows only after the right password.
      expect(await answer('/api/auth/two-factor/verify-totp', { code: '000000' })).toEqual({
        status: 401,
        body: expect.objectContaining({ code: 'INVALID_TWO_FACTOR_COOKIE' }),
        cookies: 0,
      });
    });

    it('takes as long to refuse a wrong password as an unknown address (medians of interleaved attempts)', async () => {
      const user = await target().accounts.signUp();
      const org = await target().accounts.createOrg(user);
      expect(org.id).toBeTruthy();
      const timed = async (email: string) => {
        const started = performance.now();
        const reply = await createBrowserSession(target().baseUrl).call('POST', '/api/auth/sign-in/email', {
          email,
          password: 'wrong password!',
        });
        expect(reply.status).toBe(401);
        return performance.now() - started;
      };
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 12; i++) {
        known.push(await timed(user.email));
        unknown.push(await timed(`nobody-${i}-${Date.now()}@example.test`));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      // The password hash dominates both (better-auth hashes the attempt for an unknown address too); the audit
      // entry of a known member's failure must not make the difference visible.
      const ratio = median(known) / median(unknown);
      expect(ratio, `known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`).toBeGreaterThan(
        0.5,
      );
      expect(ratio).toBeLessThan(2);
    });
  });

  describe('sessions', () => {
    it('lists each session with its device and last use; one, all others or all can be signed out, and a new password signs the others out', async () => {
      const user = await target().accounts.signUp();
      const phone = (await signInFirstStep(user.email)).browser;
      const laptop = (await signInFirstStep(user.email)).browser;
      const listed = (await user.call('GET', '/api/auth/list-sessions')).body as {
        token: string;
        updatedAt: string;
        userAgent: string | null;
        ipAddress: string | null;
      }[];
      expect(listed).toHaveLength(3);
      for (const row of listed) expect(Number.isNaN(Date.parse(row.updatedAt))).toBe(false);

      const phoneToken = (await sessionOf(phone)).session.token;
      expect((await user.call('POST', '/api/auth/revoke-session', { token: phoneToken })).status).toBe(200);
      expect(await sessionOf(phone)).toBeNull();
      expect((await sessionOf(laptop)).user.email).toBe(user.email);

      // Asked not to, the password change signs the other sessions out anyway.
      const changed = await user.call('POST', '/api/auth/change-password', {
        currentPassword: TEST_PASSWORD,
        newPassword: `${TEST_PASSWORD} 2`,
        revokeOtherSessions: false,
      });
      expect(changed.status).toBe(200);
      expect(await sessionOf(laptop)).toBeNull();
      expect((await sessionOf(user)).user.email).toBe(user.email);

      const again = createBrowserSession(target().baseUrl);
      await again.call('POST', '/api/auth/sign-in/email', { email: user.email, password: `${TEST_PASSWORD} 2` });
      expect((await sessionOf(again)).user.email).toBe(user.email);
      expect((await user.call('POST', '/api/auth/revoke-sessions', {})).status).toBe(200);
      expect(await sessionOf(again)).toBeNull();
      expect(await sessionOf(user)).toBeNull();
    });
  });

  describe('an organization that requires two-factor', () => {
    it('can be set only by an owner who uses it; then members without it reach nothing of the organization but their profile, and API keys still work', async () => {
      const owner = await target().accounts.signUp();
      const org = await target().accounts.createOrg(owner);
      const member = await target().accounts.addMember(owner, org, 'admin');
      const key = await target().accounts.createApiKey(owner, 'read');
      const require = () =>
        owner.call('POST', '/api/auth/organization/update', {
          organizationId: org.id,
          data: { requireTwoFactor: true },
        });

      const refused = await require();
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('TWO_FACTOR_NOT_SET_UP');
      await enableTotp(owner);
      expect((await require()).status).toBe(200);
      const listed = (await member.call('GET', '/api/auth/organization/list')).body as {
        id: string;
        requireTwoFactor: boolean;
      }[];
      expect(listed.find((o) => o.id === org.id)?.requireTwoFactor).toBe(true);

      const forms = await member.call('GET', '/api/v1/forms');
      expect(forms.status).toBe(403);
      expect(forms.body.error.code).toBe('TWO_FACTOR_REQUIRED');
      const invite = await member.call('POST', '/api/auth/organization/invite-member', {
        email: 'someone@example.test',
        role: 'member',
      });
      expect(invite.status).toBe(403);
      expect(invite.body.code).toBe('TWO_FACTOR_REQUIRED');
      expect((await member.call('GET', '/api/auth/organization/get-full-organization')).status).toBe(403);
      expect((await owner.call('GET', '/api/v1/forms')).status).toBe(200);
      const withKey = await fetch(`${target().baseUrl}/api/v1/forms`, { headers: { 'x-api-key': key } });
      expect(withKey.status).toBe(200);

      await enableTotp(member);
      expect((await member.call('GET', '/api/v1/forms')).status).toBe(200);
      expect((await member.call('GET', '/api/auth/organization/get-full-organization')).status).toBe(200);
    });
  });
}
