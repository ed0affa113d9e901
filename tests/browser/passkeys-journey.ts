import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, TEST_PASSWORD } from '../harness/accounts.ts';
import {
  addVirtualAuthenticator,
  launchChromium,
  screenshotBoth,
  seriousA11yViolations,
  VIEWPORTS,
} from '../harness/chromium.ts';

/**
 * A running Formgate to drive: its public URL, on a host name (`http://localhost:<port>`: WebAuthn refuses an IP
 * address as the relying party), and the first link of a mail sent to a user.
 */
export interface PasskeyJourneyTarget {
  url: string;
  mailLink(email: string, subject: RegExp): Promise<string>;
}

const FORM_NAME = 'Passkey journey';

/**
 * Passkeys in real Chromium, whose tab holds a virtual platform authenticator (DevTools' WebAuthn domain: it answers
 * every prompt at once, as after a fingerprint). A user (signed up, verified and given an organization and a form
 * through the auth API) signs in with the password, adds a passkey named "Work laptop" on the profile and renames
 * it; signed out, "Sign in with a passkey" lands on the dashboard without the password. Once the passkey is removed
 * on the profile, the authenticator still holds it, but a sign-in with it is refused with a sentence saying why.
 * Screens get an axe-core pass and screenshots (`.run/artifacts/screenshots/<suite>-passkeys/`).
 */
export function describePasskeyJourney(suite: string, target: () => PasskeyJourneyTarget) {
  let app: PasskeyJourneyTarget;
  let browser: Browser;
  let page: Page;
  let authenticator: Awaited<ReturnType<typeof addVirtualAuthenticator>>;
  let email: string;

  async function screen(name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-passkeys`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  const passkeysPanel = () => page.getByRole('region', { name: 'Passkeys', exact: true });
  const passkeyList = () => passkeysPanel().getByRole('list', { name: 'Your passkeys' });
  async function atFormsList() {
    await page.waitForURL(/\/dashboard\/forms$/);
    await page.getByRole('heading', { name: 'Forms', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Forms', exact: true }).getByRole('heading', { name: FORM_NAME }).waitFor();
  }
  async function openProfile() {
    await page.goto(`${app.url}/dashboard/profile`);
    await page.getByRole('heading', { name: 'My profile', level: 1 }).waitFor();
  }
  /** The account menu's "Sign out", then the sign-in screen (on its way back to the forms). */
  async function signOut() {
    await page.goto(`${app.url}/dashboard/forms`);
    await atFormsList();
    await page
      .getByRole('button', { name: `Account menu for ${email}` })
      .first()
      .click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login\?redirect=%2Fdashboard%2Fforms$/);
    await page.getByRole('heading', { name: 'Sign in to Formgate' }).waitFor();
  }

  describe.sequential(`passkeys end to end (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      expect(new URL(app.url).hostname).toBe('localhost');
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
      authenticator = await addVirtualAuthenticator(page);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('a user signs in with the password, adds a passkey named "Work laptop" on the profile, and renames it', async () => {
      const accounts = createAccounts(app.url, app.mailLink);
      const user = await accounts.signUp(`passkeys.${Date.now()}@example.com`);
      email = user.email;
      await accounts.createOrg(user, 'Passkey Makers');
      const form = await user.call('POST', '/api/v1/forms', { name: FORM_NAME });
      expect(form.status, JSON.stringify(form.body)).toBe(201);

      await page.goto(`${app.url}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: /^Sign in$/ }).click();
      await atFormsList();

      await openProfile();
      await passkeysPanel().getByText('You have no passkeys yet.').waitFor();
      await passkeysPanel().getByRole('button', { name: 'Add a passkey' }).click();
      const add = passkeysPanel().getByRole('form', { name: 'Add a passkey' });
      // Offered: where it is being made.
      expect(await add.getByLabel('Name of the passkey').inputValue()).toBe('Passkey on Chrome on Linux');
      await add.getByLabel('Name of the passkey').fill('Work laptop');
      await add.getByRole('button', { name: 'Create passkey' }).click();
      await page.getByText('Passkey added').first().waitFor();
      await passkeyList().getByText('Work laptop', { exact: true }).waitFor();
      expect(await add.count()).toBe(0);
      // The authenticator made a discoverable credential for this host.
      const held = await authenticator.credentials();
      expect(held.map((c) => [c.rpId, c.isResidentCredential])).toEqual([['localhost', true]]);
      await screen('profile-passkey-added');

      await passkeyList().getByRole('button', { name: 'Rename Work laptop' }).click();
      const rename = passkeyList().getByRole('form', { name: 'Rename Work laptop' });
      await rename.getByLabel('New name').fill('Work laptop (office)');
      await rename.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Passkey renamed').first().waitFor();
      await passkeyList().getByText('Work laptop (office)', { exact: true }).waitFor();
      await page.reload();
      await passkeyList().getByText('Work laptop (office)', { exact: true }).waitFor();
      expect(await passkeyList().getByRole('listitem').count()).toBe(1);
    });

    it('signs out; "Sign in with a passkey" lands on the dashboard without the password', async () => {
      await signOut();
      expect(await page.getByLabel('Password').inputValue()).toBe('');
      await screen('sign-in');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await atFormsList();
      await page
        .getByRole('button', { name: `Account menu for ${email}` })
        .first()
        .waitFor();
    });

    it('removes the passkey on the profile; a sign-in with it is then refused, saying why', async () => {
      await openProfile();
      await passkeyList().getByRole('button', { name: 'Remove Work laptop (office)' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Remove this passkey?' });
      await confirm
        .getByText('“Work laptop (office)” will no longer sign you in to Formgate.', { exact: false })
        .waitFor();
      await confirm.getByRole('button', { name: 'Remove passkey' }).click();
      await page.getByText('Passkey removed').first().waitFor();
      await passkeysPanel().getByText('You have no passkeys yet.').waitFor();

      await signOut();
      // The device still holds it; Formgate no longer knows it.
      expect(await authenticator.credentials()).toHaveLength(1);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page
        .getByRole('alert')
        .getByText(
          'This passkey is not linked to a Formgate account any more. Sign in with your password; you can add a new passkey on your profile.',
        )
        .waitFor();
      expect(page.url()).toMatch(/\/login\?redirect=%2Fdashboard%2Fforms$/);
      await screen('sign-in-passkey-removed');
      // Still nobody signed in: the dashboard sends to the sign-in screen.
      await page.goto(`${app.url}/dashboard/forms`);
      await page.waitForURL(/\/login\?redirect=%2Fdashboard%2Fforms$/);
    });
  });
}
