import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, type Org, TEST_PASSWORD } from '../harness/accounts.ts';
import type { BrowserSession } from '../harness/browser-session.ts';
import { launchChromium, screenshotBoth, seriousA11yViolations, VIEWPORTS } from '../harness/chromium.ts';
import { totpCodeFromSecret } from '../harness/totp.ts';

/** A running Formgate to drive: its public URL and the first link of a mail sent to a user. */
export interface TwoFactorJourneyTarget {
  url: string;
  mailLink(email: string, subject: RegExp): Promise<string>;
}

const ORG_NAME = 'Analytical Engines';
const FORM_NAME = 'Two-factor journey';

/** A 6-digit code the app does not show for `secret` now, nor one period before or after (the server's window). */
async function wrongCodeFor(secret: string): Promise<string> {
  const valid = new Set(await Promise.all([-1, 0, 1].map((step) => totpCodeFromSecret(secret, step))));
  let n = 0;
  while (valid.has(String(n).padStart(6, '0'))) n += 111_111;
  return String(n).padStart(6, '0');
}

/**
 * Issue 32's two-factor sign-in in real Chromium. An owner (signed up, verified and given an organization, a form
 * and a member through the auth API) sets two-factor up on their profile with the key shown beside the QR code (its
 * codes computed by otplib, as an authenticator app would) and keeps a backup code; signing in then asks for a code:
 * a wrong one is refused, the right one lands on the dashboard; in fresh browsers the backup code works once. The
 * owner then requires two-factor of the organization's members: the member, signed in, meets the gate on the forms
 * screen, follows it to their profile, sets two-factor up there and reaches the forms. Last, the owner signs another
 * browser out from the profile's sessions, and that browser's next page is the sign-in screen. Every screen gets an axe-core
 * pass and screenshots (`.run/artifacts/screenshots/<suite>-two-factor/`).
 */
export function describeTwoFactorJourney(suite: string, target: () => TwoFactorJourneyTarget) {
  let app: TwoFactorJourneyTarget;
  let browser: Browser;
  /** The owner's first browser: set up there, then signed out and in again with a code. */
  let dash: Page;
  let owner: BrowserSession & { email: string };
  let member: BrowserSession & { email: string };
  let org: Org;
  let ownerSecret: string;
  let backupCode: string;

  async function screen(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-two-factor`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  /** A page in a browser context of its own: no cookies, nobody signed in. */
  const freshPage = async () => (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
  const twoFactorPanel = (page: Page) => page.getByRole('region', { name: 'Two-factor authentication', exact: true });

  /** The sign-in screen, filled and sent (the password step). */
  async function signIn(page: Page, email: string) {
    await page.goto(`${app.url}/login`);
    await page.getByRole('heading', { name: 'Sign in to Formgate' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: /^Sign in$/ }).click();
  }
  /** After the password: the code screen, on its way back to the dashboard. */
  async function atTwoFactorScreen(page: Page) {
    await page.waitForURL(/\/login\/two-factor\?redirect=%2Fdashboard$/);
    await page.getByRole('heading', { name: 'Two-factor authentication', level: 1 }).waitFor();
  }
  async function atFormsList(page: Page) {
    await page.waitForURL(/\/dashboard\/forms$/);
    await page.getByRole('heading', { name: 'Forms', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Forms', exact: true }).getByRole('heading', { name: FORM_NAME }).waitFor();
  }

  /**
   * On the profile, with two-factor off: sets it up as a person would (password, the key shown beside the QR code
   * into the app, its code back) and returns the key and the backup codes the page showed.
   */
  async function setUpTwoFactor(page: Page, screenName?: string) {
    const panel = twoFactorPanel(page);
    await panel.getByText('Status: Off').waitFor();
    await panel.getByRole('button', { name: 'Set up two-factor' }).click();
    const password = panel.getByRole('form', { name: 'Confirm your password' });
    await password.getByLabel('Your password').fill(TEST_PASSWORD);
    await password.getByRole('button', { name: 'Continue' }).click();

    const scan = panel.getByRole('region', { name: '1. Scan the QR code with your authenticator app' });
    await scan.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await scan.getByText('Cannot scan it? Enter this key in the app instead:').waitFor();
    await scan.getByRole('button', { name: 'Copy the key' }).waitFor();
    const secret = ((await scan.getByRole('code').textContent()) ?? '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}=*$/);

    const saved = panel.getByRole('region', { name: '2. Save your backup codes' });
    const backupCodes = (
      await saved.getByRole('list', { name: 'Backup codes' }).getByRole('listitem').allTextContents()
    )
      .map((c) => c.trim())
      .filter(Boolean);
    expect(backupCodes).toHaveLength(10);
    expect(new Set(backupCodes).size).toBe(10);
    if (screenName) await screen(page, screenName);

    const confirm = panel.getByRole('region', { name: '3. Confirm with a code from the app' });
    await confirm.getByLabel('Enter the 6-digit code from your app').fill(await totpCodeFromSecret(secret));
    await confirm.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByText('Two-factor authentication is on').first().waitFor();
    await panel.getByText('Status: On').waitFor();
    await panel.getByRole('button', { name: 'Show new backup codes' }).waitFor();
    await panel.getByRole('button', { name: 'Turn off two-factor' }).waitFor();
    // What was handed out once is gone from the page.
    expect(await panel.getByRole('img', { name: 'QR code for your authenticator app' }).count()).toBe(0);
    expect(await panel.getByRole('list', { name: 'Backup codes' }).count()).toBe(0);
    return { secret, backupCodes };
  }

  describe.sequential(`two-factor sign-in end to end (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      browser = await launchChromium();
      dash = await freshPage();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('an owner with an organization, a form and a member signs in (password only) and sets two-factor up on the profile', async () => {
      const accounts = createAccounts(app.url, app.mailLink);
      owner = await accounts.signUp(`owner.${Date.now()}@example.com`);
      org = await accounts.createOrg(owner, ORG_NAME);
      const form = await owner.call('POST', '/api/v1/forms', { name: FORM_NAME });
      expect(form.status, JSON.stringify(form.body)).toBe(201);
      member = await accounts.addMember(owner, org, 'member');

      // No two-factor yet: the password is enough.
      await signIn(dash, owner.email);
      await atFormsList(dash);
      await dash.goto(`${app.url}/dashboard/profile`);
      await dash.getByRole('heading', { name: 'My profile', level: 1 }).waitFor();
      const { secret, backupCodes } = await setUpTwoFactor(dash, 'profile-setup');
      ownerSecret = secret;
      backupCode = backupCodes[3] as string;
      await screen(dash, 'profile-two-factor-on');
    });

    it('signs out; signing in again asks for a code: a wrong one is refused, the right one lands on the dashboard', async () => {
      await dash.goto(`${app.url}/dashboard`);
      await atFormsList(dash);
      await dash
        .getByRole('button', { name: `Account menu for ${owner.email}` })
        .first()
        .click();
      await dash.getByRole('menuitem', { name: 'Sign out' }).click();
      await dash.waitForURL(/\/login\?redirect=%2Fdashboard%2Fforms$/);
      // Straight to /login: after it, the dashboard.
      await signIn(dash, owner.email);
      await atTwoFactorScreen(dash);
      await dash.getByText('Open your authenticator app and enter the code it shows for Formgate.').waitFor();
      const trust = dash.getByLabel('Trust this device for 30 days');
      expect(await trust.isChecked()).toBe(false);

      await dash.getByLabel('Authentication code').fill(await wrongCodeFor(ownerSecret));
      await dash.getByRole('button', { name: 'Verify' }).click();
      await dash
        .getByRole('alert')
        .getByText('That code is not right. Enter the code your authenticator app shows now.')
        .waitFor();
      expect(dash.url()).toMatch(/\/login\/two-factor\?/);
      await screen(dash, 'sign-in-wrong-code');

      await dash.getByLabel('Authentication code').fill(await totpCodeFromSecret(ownerSecret));
      await dash.getByRole('button', { name: 'Verify' }).click();
      await atFormsList(dash);
      await dash
        .getByRole('button', { name: `Account menu for ${owner.email}` })
        .first()
        .waitFor();
    });

    it('in a fresh browser, signs in with a saved backup code instead; the same code in another is refused', async () => {
      const first = await freshPage();
      await signIn(first, owner.email);
      await atTwoFactorScreen(first);
      await first.getByRole('button', { name: 'Use a backup code instead' }).click();
      await first.getByText('Enter one of the backup codes you saved when you set up two-factor.').waitFor();
      await first.getByLabel('Backup code').fill(backupCode);
      await screen(first, 'sign-in-backup-code');
      await first.getByRole('button', { name: 'Verify' }).click();
      await atFormsList(first);
      await first.context().close();

      const again = await freshPage();
      await signIn(again, owner.email);
      await atTwoFactorScreen(again);
      await again.getByRole('button', { name: 'Use a backup code instead' }).click();
      await again.getByLabel('Backup code').fill(backupCode);
      await again.getByRole('button', { name: 'Verify' }).click();
      await again.getByRole('alert').getByText('That backup code is not right, or it was already used.').waitFor();
      expect(again.url()).toMatch(/\/login\/two-factor\?/);
      await screen(again, 'sign-in-backup-code-used');
      // Still nobody signed in there: the dashboard sends to the sign-in screen.
      await again.goto(`${app.url}/dashboard/forms`);
      await again.waitForURL(/\/login\?redirect=%2Fdashboard%2Fforms$/);
      await again.getByRole('heading', { name: 'Sign in to Formgate' }).waitFor();
      await again.context().close();
    });

    it('the owner requires two-factor of members; a member without it meets the gate, sets it up on their profile, and reaches the forms', async () => {
      await dash.goto(`${app.url}/dashboard/organization`);
      const security = dash.getByRole('region', { name: 'Security', exact: true });
      await security.getByText('Members without it can only reach their profile until they set it up.').waitFor();
      const required = security.getByLabel('Members must use two-factor authentication');
      expect(await required.isChecked()).toBe(false);
      // `check()` fails when the box does not show the click at once.
      await required.check();
      await dash.getByText('Members must now use two-factor authentication').first().waitFor();
      expect(await required.isChecked()).toBe(true);
      await dash.reload();
      await security.getByLabel('Members must use two-factor authentication').waitFor();
      expect(await required.isChecked()).toBe(true);
      await screen(dash, 'organization-security');

      const own = await freshPage();
      await signIn(own, member.email);
      await own.waitForURL(/\/dashboard\/forms$/);
      const gate = own.getByRole('heading', { name: `${ORG_NAME} requires two-factor authentication`, level: 1 });
      await gate.waitFor();
      await own.getByText('Until then you can reach only your profile.').waitFor();
      expect(await own.getByRole('heading', { name: 'Forms', level: 1 }).count()).toBe(0);
      await screen(own, 'member-gate');
      // Every dashboard screen but the profile: the organization's too.
      await own.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Organization' }).click();
      await own.waitForURL(/\/dashboard\/organization$/);
      await gate.waitFor();
      expect(await own.getByText('Your role:').count()).toBe(0);

      await own.getByRole('link', { name: 'Set up two-factor on your profile' }).click();
      await own.waitForURL(/\/dashboard\/profile$/);
      await own.getByRole('heading', { name: 'My profile', level: 1 }).waitFor();
      expect(await gate.count()).toBe(0);
      await setUpTwoFactor(own);

      await own
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Forms', exact: true })
        .click();
      await atFormsList(own);
      expect(await gate.count()).toBe(0);
      await screen(own, 'member-forms-after-setup');
      await own.context().close();
    });

    it('signs another browser out from the profile: its next page is the sign-in screen, this one stays', async () => {
      const other = await freshPage();
      await signIn(other, owner.email);
      await atTwoFactorScreen(other);
      await other.getByLabel('Authentication code').fill(await totpCodeFromSecret(ownerSecret));
      await other.getByRole('button', { name: 'Verify' }).click();
      await atFormsList(other);

      await dash.goto(`${app.url}/dashboard/profile`);
      const sessions = dash.getByRole('region', { name: 'Sessions', exact: true });
      const list = sessions.getByRole('list', { name: 'Your sessions' });
      await list.getByText('This device').waitFor();
      await expect.poll(() => list.getByRole('listitem').count()).toBeGreaterThanOrEqual(2);
      await sessions.getByRole('button', { name: 'Sign out of all other sessions' }).click();
      await dash.getByText('Signed out of your other sessions').first().waitFor();
      await expect.poll(() => list.getByRole('listitem').count()).toBe(1);

      await other.goto(`${app.url}/dashboard/forms`);
      await other.waitForURL(/\/login\?redirect=/);
      await other.getByRole('heading', { name: 'Sign in to Formgate' }).waitFor();
      await dash.reload();
      await dash.getByRole('heading', { name: 'My profile', level: 1 }).waitFor();
      await other.context().close();
    });
  });
}
