import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { recordBrowserApiAnswers } from './browser-api-recorder.ts';

/** Screenshots of every screen, kept as test artifacts (`.ci/run` leaves them in the clone). */
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '../../.run/artifacts/screenshots');

/**
 * Debian's Chromium (never a browser Playwright downloads): `CHROMIUM_PATH`, else `chromium` on PATH. Throws with
 * the fix when there is none — browser tests never skip.
 */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      "The browser tests need Debian's Chromium: apt-get install -y chromium (.ci/run does it), or set CHROMIUM_PATH.",
    );
  }
}

/** Chromium, whose pages' API answers the process's API recorder records (`browser-api-recorder.ts`). */
export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  recordBrowserApiAnswers(browser);
  return browser;
}

export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, mobile: { width: 375, height: 740 } } as const;

/**
 * Full-page screenshots at 1280 px and at 375 px in the light scheme, and at 1280 px in the dark one:
 * `<SCREENSHOT_DIR>/<suite>/<name>-<width>[-dark].png`. Leaves the page light, at its viewport.
 */
export async function screenshotBoth(page: Page, suite: string, name: string): Promise<void> {
  const dir = join(SCREENSHOT_DIR, suite);
  mkdirSync(dir, { recursive: true });
  const before = page.viewportSize();
  for (const size of Object.values(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50); // one layout pass after the resize
    await page.screenshot({ path: join(dir, `${name}-${size.width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
  await page.emulateMedia({ colorScheme: 'dark' });
  await settled(page);
  await page.screenshot({ path: join(dir, `${name}-${VIEWPORTS.desktop.width}-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Waits for the page's finite CSS transitions and animations (a button's colours easing into a new scheme, a toast
 * sliding in) to end, so that contrast is measured on the colours a reader finally sees, not on a frame between two.
 */
async function settled(page: Page) {
  await page.waitForTimeout(50);
  // A string, run in the page: the tests' TypeScript has no DOM types.
  await page.evaluate(`Promise.all(
    document
      .getAnimations()
      .filter((a) => a.playState === 'running' && Number.isFinite(a.effect?.getComputedTiming().endTime ?? NaN))
      .map((a) => a.finished.catch(() => undefined)),
  )`);
}

/**
 * Serious and critical axe-core violations on the page as it is now, in the light and in the dark scheme, one line
 * each (empty when none). Tests expect them joined to be empty, so that a failure names them.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await settled(page);
    const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
    for (const v of violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      found.push(
        `${colorScheme}: ${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** A same-origin API call from `page` (the dashboard's session cookie goes along): its status and parsed body. */
export const pageApi = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(p, {
        method: m,
        headers: { accept: 'application/json', ...(b === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(b === undefined ? {} : { body: JSON.stringify(b) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    [method, path, body] as const,
  );

/**
 * A virtual WebAuthn authenticator in `page`'s tab (DevTools' `WebAuthn` domain): a platform authenticator (CTAP2,
 * internal transport) that keeps discoverable credentials and answers every prompt at once, user present and
 * verified, as after a fingerprint. It lasts as long as the page, across navigations; `credentials()` lists what it
 * holds.
 */
export async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}
