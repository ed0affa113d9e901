import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../harness/accounts.ts';
import { createBrowserSession } from '../harness/browser-session.ts';
import type { TargetRef } from './target.ts';

/** Spec §2–§7 account journeys through the gateway; run by the embedded and the distributed suites alike. */
export function describeAccountFlows(target: TargetRef) {
  describe('accounts through the gateway', () => {
    it('requires a verified email: the emailed link signs the user in and redirects', async () => {
      const browser = createBrowserSession(target().baseUrl);
      const email = `verify-me-${randomUUID()}@example.test`;
      const signUp = await browser.call('POST', '/api/auth/sign-up/email', {
        email,
        password: TEST_PASSWORD,
        name: 'V',
      });
      expect(signUp.status).toBe(200);
      expect(browser.cookies.size).toBe(0);
      const early = await browser.call('POST', '/api/auth/sign-in/email', { email, password: TEST_PASSWORD });
      expect(early.status).toBe(403);
      expect(early.body.code).toBe('EMAIL_NOT_VERIFIED');

      const link = await target().mailLink(email, /verify/i);
      expect(new URL(link).pathname).toBe('/api/auth/verify-email');
      expect(new URL(link).searchParams.get('token')).toBeTruthy();
      const verified = await browser.call('GET', link);
      expect(verified.status).toBe(302);
      const session = await browser.call('GET', '/api/auth/get-session');
      expect(session.body.user).toMatchObject({ email, emailVerified: true });
    });

    it('signs in with a callbackURL answering {url, redirect: true}, with HttpOnly SameSite=Lax cookies', async () => {
      const user = await target().accounts.signUp();
      const browser = createBrowserSession(target().baseUrl);
      const reply = await browser.call('POST', '/api/auth/sign-in/email', {
        email: user.email,
        password: TEST_PASSWORD,
        callbackURL: '/dashboard',
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ redirect: true, url: '/dashboard' });
      const cookie = reply.headers.getSetCookie().find((c) => c.startsWith('formgate.session_token='));
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).not.toMatch(/Secure/i);
      expect((await browser.call('GET', '/api/v1/session')).body.user.email).toBe(user.email);
    });

    it('rejects a wrong password without saying whether the account exists', async () => {
      const user = await target().accounts.signUp();
      const browser = createBrowserSession(target().baseUrl);
      const wrong = await browser.call('POST', '/api/auth/sign-in/email', {
        email: user.email,
        password: 'not the password',
      });
      const unknown = await browser.call('POST', '/api/auth/sign-in/email', {
        email: 'nobody@example.test',
        password: 'x'.repeat(12),
      });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body.message).toBe(unknown.body.message);
    });

    it('signs out: the session cookie stops working', async () => {
      const user = await target().accounts.signUp();
      const stolen = [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      expect((await user.call('POST', '/api/auth/sign-out')).status).toBe(200);
      const replay = await fetch(`${target().baseUrl}/api/v1/session`, { headers: { cookie: stolen } });
      expect(replay.status).toBe(401);
    });

    it('resets a forgotten password through the emailed link and revokes the old sessions', async () => {
      const user = await target().accounts.signUp();
      const anon = createBrowserSession(target().baseUrl);
      const asked = await anon.call('POST', '/api/auth/request-password-reset', {
        email: user.email,
        redirectTo: '/reset',
      });
      expect(asked.status).toBe(200);
      const link = await target().mailLink(user.email, /reset/i);
      const opened = await anon.call('GET', link);
      expect(opened.status).toBe(302);
      const token = new URL(opened.headers.get('location') as string, target().baseUrl).searchParams.get('token');
      expect(token).toBeTruthy();
      const reset = await anon.call('POST', '/api/auth/reset-password', { token, newPassword: 'a brand new password' });
      expect(reset.status).toBe(200);
      expect((await user.call('GET', '/api/v1/session')).status).toBe(401);
      const signIn = await anon.call('POST', '/api/auth/sign-in/email', {
        email: user.email,
        password: 'a brand new password',
      });
      expect(signIn.status).toBe(200);
    });

    it('updates the user, revokes other sessions, revokes all sessions', async () => {
      const user = await target().accounts.signUp();
      expect((await user.call('POST', '/api/auth/update-user', { name: 'Renamed' })).status).toBe(200);
      expect((await user.call('GET', '/api/auth/get-session')).body.user.name).toBe('Renamed');

      const laptop = createBrowserSession(target().baseUrl);
      await laptop.call('POST', '/api/auth/sign-in/email', { email: user.email, password: TEST_PASSWORD });
      expect((await laptop.call('GET', '/api/v1/session')).status).toBe(200);
      expect((await user.call('POST', '/api/auth/revoke-other-sessions')).status).toBe(200);
      expect((await laptop.call('GET', '/api/v1/session')).status).toBe(401);
      expect((await user.call('GET', '/api/v1/session')).status).toBe(200);
      expect((await user.call('POST', '/api/auth/revoke-sessions')).status).toBe(200);
      expect((await user.call('GET', '/api/v1/session')).status).toBe(401);
    });

    it('deletes the user: the account and its sessions are gone', async () => {
      const user = await target().accounts.signUp();
      const deleted = await user.call('POST', '/api/auth/delete-user', { password: TEST_PASSWORD });
      expect(deleted.status).toBe(200);
      expect((await user.call('GET', '/api/v1/session')).status).toBe(401);
      const lookup = await createBrowserSession(target().baseUrl).call(
        'GET',
        `/api/v1/users/by-email/${encodeURIComponent(user.email)}`,
      );
      expect(lookup.body).toEqual({ email: user.email, exists: false });
    });

    it('finds a user by email for /login/{email}; rejects what is not an email', async () => {
      const user = await target().accounts.signUp();
      const anon = createBrowserSession(target().baseUrl);
      expect(
        (await anon.call('GET', `/api/v1/users/by-email/${encodeURIComponent(user.email.toUpperCase())}`)).body,
      ).toEqual({
        email: user.email,
        exists: true,
      });
      const bad = await anon.call('GET', '/api/v1/users/by-email/not-an-email');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('INVALID_EMAIL');
    });

    it('answers the session call with the user, active organization and role', async () => {
      const user = await target().accounts.signUp();
      expect((await user.call('GET', '/api/v1/session')).body.session.activeOrganizationId).toBeNull();
      const org = await target().accounts.createOrg(user);
      const session = (await user.call('GET', '/api/v1/session')).body;
      expect(session).toMatchObject({
        user: { email: user.email },
        session: { activeOrganizationId: org.id },
        roles: ['owner'],
      });
      expect((await target().mails(user.email)).map((m) => m.subject)).toEqual(['Verify your email for Formgate']);
    });

    it('starts a new session in the organization last active, while the user is still a member of it', async () => {
      const signIn = async (email: string) => {
        const browser = createBrowserSession(target().baseUrl);
        const reply = await browser.call('POST', '/api/auth/sign-in/email', { email, password: TEST_PASSWORD });
        expect(reply.status).toBe(200);
        return (await browser.call('GET', '/api/v1/session')).body;
      };
      const owner = await target().accounts.signUp();
      const first = await target().accounts.createOrg(owner);
      await target().accounts.createOrg(owner);
      const switched = await owner.call('POST', '/api/auth/organization/set-active', { organizationId: first.id });
      expect(switched.status).toBe(200);
      const again = await signIn(owner.email);
      expect(again).toMatchObject({ session: { activeOrganizationId: first.id }, roles: ['owner'] });
      expect(JSON.stringify(again)).not.toContain('lastActiveOrganizationId');

      // Removed from it: the next session starts without one (the dashboard sends the user to /onboard).
      const member = await target().accounts.addMember(owner, first, 'member');
      expect((await signIn(member.email)).session.activeOrganizationId).toBe(first.id);
      const removed = await owner.call('POST', '/api/auth/organization/remove-member', {
        memberIdOrEmail: member.email,
        organizationId: first.id,
      });
      expect(removed.status).toBe(200);
      expect((await signIn(member.email)).session.activeOrganizationId).toBeNull();
    });
  });

  describe('rate limits and cookies under other settings', () => {
    it('limits sign-in attempts per client; a spoofed X-Forwarded-For does not reset the count', async () => {
      const limited = await target().startGateway({ AUTH_SIGN_IN_PER_MINUTE: '3' });
      try {
        const browser = createBrowserSession(limited.baseUrl);
        const attempt = (ip: string) =>
          browser.call(
            'POST',
            '/api/auth/sign-in/email',
            { email: 'x@example.test', password: 'wrong password!' },
            {
              'x-forwarded-for': ip,
            },
          );
        const replies = [];
        for (const ip of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4', '5.5.5.5']) replies.push(await attempt(ip));
        expect(replies.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
        // When to try again, in the standard header.
        const wait = Number(replies[4]?.headers.get('retry-after'));
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60);
      } finally {
        await limited.stop();
      }
    });

    it('limits user lookups per client; behind a trusted proxy each forwarded client has its own budget', async () => {
      const proxied = await target().startGateway({ USER_LOOKUPS_PER_MINUTE: '2', TRUSTED_PROXIES: '127.0.0.1' });
      try {
        const lookup = (ip: string) =>
          fetch(`${proxied.baseUrl}/api/v1/users/by-email/a%40example.test`, { headers: { 'x-forwarded-for': ip } });
        const first = [];
        for (let i = 0; i < 3; i++) first.push((await lookup('9.9.9.1')).status);
        expect(first).toEqual([200, 200, 429]);
        expect((await lookup('9.9.9.2')).status).toBe(200);
      } finally {
        await proxied.stop();
      }
    });

    it('marks cookies Secure when the public URL is https', async () => {
      const secure = await target().startGateway({ PUBLIC_URL: 'https://formgate.example' });
      try {
        const browser = createBrowserSession(secure.baseUrl, 'https://formgate.example');
        const email = `secure-${randomUUID()}@example.test`;
        await browser.call('POST', '/api/auth/sign-up/email', { email, password: TEST_PASSWORD, name: 's' });
        const link = new URL(await secure.mailLink(email, /verify/i));
        const opened = await browser.call('GET', `${link.pathname}${link.search}`);
        const cookie = opened.headers.getSetCookie().find((c) => c.includes('session_token='));
        expect(cookie).toMatch(/^__Secure-formgate\.session_token=.*; Secure/i);
      } finally {
        await secure.stop();
      }
    });
  });
}
