import { randomUUID } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../harness/accounts.ts';
import { launchChromium, screenshotBoth, seriousA11yViolations, VIEWPORTS } from '../harness/chromium.ts';
import type { TestDnsServer } from '../harness/dns-server.ts';
import type { TestIdp } from '../harness/oidc-idp.ts';

/**
 * A running Formgate to drive, the OpenID provider and the DNS server it was started with (trusted, and asked for
 * the verification record), and the first link of a mail sent to a user.
 */
export interface SsoJourneyTarget {
  url: string;
  idp: TestIdp;
  dns: TestDnsServer;
  mailLink(email: string, subject: RegExp): Promise<string>;
}

const ORG_NAME = 'Babbage Works';

/**
 * Issue 32's single sign-on in real Chromium, against a real OpenID provider (`oidc-provider`, which signs in the
 * user the test names without a form) and a real DNS server. An owner signs up, creates an organization and connects
 * its identity provider in Organization → Single sign-on; the test registers the page's redirect URI at the
 * provider and publishes the page's TXT record; "Verify domain" says the record is missing before, "Verified"
 * after; the owner requires single sign-on. Someone new signs in with SSO from the sign-in screen (an unknown domain
 * first, refused) and lands in the organization as a member. A member with a password meets the gate on every
 * organization screen but the profile, and passes it by signing in through the provider, back where they were. The
 * audit log names the single sign-on entries. Every screen gets an axe-core pass and screenshots
 * (`.run/artifacts/screenshots/<suite>-sso/`).
 */
export function describeSsoJourney(suite: string, target: () => SsoJourneyTarget) {
  const domain = `babbage-${randomUUID().slice(0, 8)}.test`;
  const clientId = `formgate-${randomUUID().slice(0, 8)}`;
  const clientSecret = randomUUID();
  const ownerEmail = `owner.${Date.now()}@example.com`;
  let app: SsoJourneyTarget;
  let browser: Browser;
  /** The owner's browser. */
  let dash: Page;
  let redirectUri: string;

  async function screen(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-sso`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  /** A page in a browser context of its own: no cookies, nobody signed in. */
  const freshPage = async () => (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
  /** The value shown beside a copy button, which the button copies (a URI, a DNS record's name or value). */
  async function copyable(region: Locator, copyLabel: string) {
    const term = region.locator('dd', { has: region.page().getByRole('button', { name: copyLabel }) });
    return ((await term.locator('code').textContent()) ?? '').trim();
  }

  /** Signs up through the screens and opens the verification link; the browser is signed in. */
  async function signUp(page: Page, name: string, email: string) {
    await page.goto(`${app.url}/sign-up`);
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.goto(await app.mailLink(email, /verify/i));
    await page.getByRole('heading', { name: 'Your email is verified' }).waitFor();
  }
  async function atFormsList(page: Page) {
    await page.waitForURL(/\/dashboard\/forms$/);
    await page.getByRole('heading', { name: 'Forms', level: 1 }).waitFor();
  }

  describe.sequential(`single sign-on end to end (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      browser = await launchChromium();
      dash = await freshPage();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('an owner signs up, creates an organization and connects its identity provider', async () => {
      await signUp(dash, 'Owner', ownerEmail);
      await dash.getByRole('link', { name: 'Continue' }).click();
      await dash.waitForURL(/\/onboard$/);
      await dash.getByLabel('Organization name').fill(ORG_NAME);
      await dash.getByRole('button', { name: 'Create organization' }).click();
      await atFormsList(dash);

      await dash.goto(`${app.url}/dashboard/organization`);
      await dash
        .getByRole('navigation', { name: 'Organization sections' })
        .getByRole('link', { name: 'Single sign-on' })
        .click();
      await dash.waitForURL(/\/dashboard\/organization\/single-sign-on$/);
      const form = dash.getByRole('form', { name: 'Connect an identity provider' });
      await form.getByLabel('Issuer URL').fill(app.idp.issuer);
      await form.getByLabel('Client ID').fill(clientId);
      await form.getByLabel('Client secret').fill(clientSecret);
      await form.getByLabel('Email domain').fill(domain);
      expect(await form.getByLabel('New members join as').inputValue()).toBe('member');
      await screen(dash, 'connect-form');
      await form.getByRole('button', { name: 'Connect provider' }).click();
      await dash.getByText('Identity provider connected').first().waitFor();

      const details = dash.getByRole('region', { name: 'Identity provider', exact: true });
      await details.getByText('Status: Domain not verified').waitFor();
      redirectUri = await copyable(details, 'Copy the redirect URI');
      expect(redirectUri).toMatch(new RegExp(`^${app.url}/api/auth/sso/callback/babbage-works-[a-z0-9]+-[a-z0-9]{6}$`));
      // The secret went to the server once; the page never shows it.
      expect(await dash.getByText(clientSecret).count()).toBe(0);
      const required = dash
        .getByRole('region', { name: 'Require single sign-on' })
        .getByLabel('Members must sign in with single sign-on');
      expect(await required.isDisabled()).toBe(true);
      await screen(dash, 'provider-unverified');
    });

    it('verifies the domain once the record is published (not before), and requires single sign-on', async () => {
      const verification = dash.getByRole('region', { name: 'Verify your domain' });
      const name = await copyable(verification, 'Copy the record name');
      const value = await copyable(verification, 'Copy the record value');
      const providerId = redirectUri.slice(redirectUri.lastIndexOf('/') + 1);
      expect(name).toBe(`_formgate-verification-${providerId}.${domain}`);
      expect(value).toMatch(new RegExp(`^_formgate-verification-${providerId}=\\S+$`));

      await verification.getByRole('button', { name: 'Verify domain' }).click();
      await verification.getByText(/^The TXT record was not found yet\./).waitFor();
      await screen(dash, 'record-not-found');

      // What the administrator does at the identity provider and at the DNS host, with what the page showed.
      app.idp.setClient({ clientId, clientSecret, redirectUris: [redirectUri] });
      app.dns.setTxt(name, [value]);
      await verification.getByRole('button', { name: 'Verify domain' }).click();
      await dash.getByText('Domain verified').first().waitFor();
      const details = dash.getByRole('region', { name: 'Identity provider', exact: true });
      await details.getByText('Status: Verified').waitFor();
      await verification.waitFor({ state: 'detached' });
      expect(app.dns.queries).toContain(name.toLowerCase());

      const requirement = dash.getByRole('region', { name: 'Require single sign-on' });
      await requirement.getByText(/Owners are exempt/).waitFor();
      const required = requirement.getByLabel('Members must sign in with single sign-on');
      await required.check();
      await dash.getByText('Members must now sign in with single sign-on').first().waitFor();
      await dash.reload();
      await requirement.getByLabel('Members must sign in with single sign-on').waitFor();
      expect(await required.isChecked()).toBe(true);
      await screen(dash, 'provider-verified');
      // The owner, who signed in with a password, is exempt.
      await dash.goto(`${app.url}/dashboard/forms`);
      await atFormsList(dash);
    });

    it('someone new signs in with SSO from the sign-in screen and lands in the organization', async () => {
      const newcomer = `new.person@${domain}`;
      app.idp.signInAs({ sub: randomUUID(), email: newcomer, name: 'New Person' });
      const page = await freshPage();
      await page.goto(`${app.url}/login`);
      await page.getByRole('heading', { name: 'Sign in to Formgate' }).waitFor();
      await page.getByRole('button', { name: 'Sign in with SSO' }).click();
      const sso = page.getByRole('form', { name: 'Sign in with SSO' });
      await sso.getByLabel('Work email').fill(`someone@unknown-${randomUUID().slice(0, 8)}.test`);
      await sso.getByRole('button', { name: 'Sign in with SSO' }).click();
      await sso.getByText(/^No identity provider is set up for this domain\./).waitFor();
      await screen(page, 'sign-in-unknown-domain');

      const logins = app.idp.completedLogins;
      await sso.getByLabel('Work email').fill(newcomer);
      await sso.getByRole('button', { name: 'Sign in with SSO' }).click();
      // Out to the identity provider and back, signed in.
      await atFormsList(page);
      expect(app.idp.completedLogins).toBe(logins + 1);
      await page
        .getByRole('button', { name: `Account menu for ${newcomer}` })
        .first()
        .waitFor();
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Organization' }).click();
      await page.getByRole('heading', { name: ORG_NAME, level: 1 }).waitFor();
      await page.getByText('Your role:').getByText('member', { exact: true }).waitFor();
      expect(await page.getByRole('heading', { name: /requires single sign-on/ }).count()).toBe(0);
      await screen(page, 'newcomer-organization');
      await page.context().close();
    });

    it('a member who signs in with a password meets the gate, and passes it through the identity provider', async () => {
      const pat = `pat.${Date.now()}@${domain}`;
      await dash.goto(`${app.url}/dashboard/organization`);
      const invite = dash.getByRole('form', { name: 'Invite a member' });
      await invite.getByLabel('Email').fill(pat);
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      await dash.getByRole('list', { name: 'Pending invitations' }).getByText(pat).waitFor();

      const member = await freshPage();
      await signUp(member, 'Pat', pat);
      await member.goto(await app.mailLink(pat, /^Join /));
      await member.getByRole('button', { name: 'Accept the invitation' }).click();
      await member.waitForURL(/\/dashboard\/forms$/);
      const gate = member.getByRole('heading', { name: `${ORG_NAME} requires single sign-on`, level: 1 });
      await gate.waitFor();
      await member
        .getByText('This organization requires single sign-on: sign in through its identity provider.')
        .waitFor();
      expect(await member.getByRole('heading', { name: 'Forms', level: 1 }).count()).toBe(0);
      await screen(member, 'member-gate');
      // Every organization screen but the profile.
      await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Organization' }).click();
      await member.waitForURL(/\/dashboard\/organization$/);
      await gate.waitFor();
      expect(await member.getByText('Your role:').count()).toBe(0);
      await member.getByRole('link', { name: 'Go to your profile' }).click();
      await member.getByRole('heading', { name: 'My profile', level: 1 }).waitFor();
      expect(await gate.count()).toBe(0);

      // Through the provider (the same address, so the same account), back to the screen it left.
      app.idp.signInAs({ sub: randomUUID(), email: pat, name: 'Pat' });
      await member.goto(`${app.url}/dashboard/organization`);
      await gate.waitFor();
      await member.getByRole('button', { name: 'Sign in with SSO' }).click();
      await member.waitForURL(/\/dashboard\/organization$/);
      await member.getByRole('heading', { name: ORG_NAME, level: 1 }).waitFor();
      await member.getByText('Your role:').waitFor();
      expect(await gate.count()).toBe(0);
      await member
        .getByRole('button', { name: `Account menu for ${pat}` })
        .first()
        .waitFor();
      await screen(member, 'member-after-sso');
      await member.context().close();
    });

    it('the audit log names the single sign-on entries', async () => {
      await dash.goto(`${app.url}/dashboard/organization/audit-log`);
      const table = dash.getByRole('table', { name: 'Audit log entries' });
      const expected = [
        `Connected an identity provider for single sign-on (${domain})`,
        `Verified ${domain} for single sign-on`,
        'Signed in with single sign-on',
        `Updated the organization "${ORG_NAME}" (two-factor not required; single sign-on required of members)`,
      ];
      // The entries reach the log through the outbox: a moment after the requests.
      for (let i = 0; ; i++) {
        await table.waitFor();
        const texts = await table.getByRole('cell').allTextContents();
        if (expected.every((sentence) => texts.includes(sentence))) break;
        if (i === 30) throw new Error(`the audit log never showed every single sign-on entry: ${texts.join(' | ')}`);
        await dash.waitForTimeout(500);
        await dash.reload();
      }
      await screen(dash, 'audit-log');
    });
  });
}
