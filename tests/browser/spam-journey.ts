import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { SpamReason, SpamSettings } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailRecord } from '../harness/browser-session.ts';
import type { CaptchaVerifier, Provider } from '../harness/captcha-verifier.ts';
import { launchChromium, pageApi, screenshotBoth, seriousA11yViolations } from '../harness/chromium.ts';

/** The siteverify secrets the local captcha verifier expects (only Turnstile's is used by the journey). */
export const SPAM_JOURNEY_SECRETS: Record<Provider, string> = {
  turnstile: 'journey-turnstile-secret',
  hcaptcha: 'journey-hcaptcha-secret',
  recaptcha: 'journey-recaptcha-secret',
};

/** A Formgate whose Turnstile siteverify calls go to `verifier` (started with `SPAM_JOURNEY_SECRETS`). */
export interface SpamJourneyTarget {
  url: string;
  mailLink(email: string, subject: RegExp): Promise<string>;
  mailbox(email: string): MailRecord[];
  verifier: CaptchaVerifier;
  /** What the app has logged so far. */
  logs(): string;
}

interface Submission {
  id: string;
  spam: boolean;
  spamReasons: SpamReason[];
  fields: { name: string; value: string }[];
}

const TIME_TRAP_SECONDS = 3;
const PER_IP_PER_MINUTE = 40;
const BLOCKED_WORD = 'casino';
/** Text a person would never send, and markup that must stay text on every screen. */
const HOSTILE = `<img src=x onerror="document.title='pwned'"> Win at the ${BLOCKED_WORD} <b>now</b>`;
const TURNSTILE_GOOD = 'turnstile-token-solved-by-a-person';
const TURNSTILE_BAD = 'turnstile-token-forged';

/** The ALTCHA widget v3 as the `altcha` package builds it (its own ES module; the proof-of-work workers inside). */
const ALTCHA_WIDGET_JS = fileURLToPath(new URL('altcha.min.js', import.meta.resolve('altcha')));

const escapeAttr = (v: string) =>
  v.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);

/**
 * Another site (its own origin) with a contact form posting to `/f/{key}`: the time-trap's field filled from
 * `GET /f/{key}/timestamp` when the page loads, and either the real ALTCHA widget (`/`) or a Turnstile response
 * field holding a given token (`/turnstile?token=…`; the real Turnstile script cannot load offline).
 */
async function startCustomerSite(appUrl: string, formKey: () => string) {
  const page = (body: string) => {
    const endpoint = `${appUrl}/f/${formKey()}`;
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact us</title>
<script async defer type="module" src="/altcha.js"></script></head>
<body><main><h1>Contact us</h1>
<form id="contact" action="${escapeAttr(endpoint)}" method="POST">
  <label>Email <input name="email" type="email" required></label>
  <label>Message <textarea name="message"></textarea></label>
  <input type="hidden" name="_formgate_ts" id="formgate-timestamp">
${body}
  <button type="submit">Send</button>
</form>
<script>
  fetch(${JSON.stringify(`${endpoint}/timestamp`)})
    .then((response) => response.json())
    .then((answer) => {
      document.getElementById('formgate-timestamp').value = answer.value;
      window.timestampLoadedAt = Date.now();
    });
</script></main></body></html>`;
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.invalid');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (url.pathname === '/altcha.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(ALTCHA_WIDGET_JS));
    } else if (url.pathname === '/') {
      html(
        page(
          `  <altcha-widget challenge="${escapeAttr(`${appUrl}/f/${formKey()}/altcha`)}" name="altcha"></altcha-widget>`,
        ),
      );
    } else if (url.pathname === '/turnstile') {
      const token = url.searchParams.get('token') ?? '';
      html(page(`  <input type="hidden" name="cf-turnstile-response" value="${escapeAttr(token)}">`));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // `localhost`, not the app's 127.0.0.1: another origin, and the hostname Turnstile reports for the page.
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Issue 14's journey in real Chromium: a form with every spam layer on; a person on another site solves the real
 * ALTCHA widget and sends after the time-trap: accepted, not spam. Scripted attacks are flagged (with their reasons
 * on the dashboard), refused (403 `BLOCKED`) or limited (429 `RATE_LIMITED`); "Not spam" releases one, notified and
 * counted once; Turnstile goes through the local verifier; the overview counts the blocked requests.
 */
export function describeSpamJourney(suite: string, target: () => SpamJourneyTarget) {
  const email = `ada.${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  const subject = /^New submission to Spam journey$/;
  let app: SpamJourneyTarget;
  let site: Awaited<ReturnType<typeof startCustomerSite>>;
  let browser: Browser;
  let dash: Page;
  let form: { id: string; key: string; slug: string };
  const flagged: Record<string, string> = {};

  async function screen(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-spam`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  /** A same-origin API call from the dashboard's page (its session cookie). */
  const api = (method: string, path: string, body?: unknown) => pageApi(dash, method, path, body);
  const submissions = async (query = '') => {
    const res = await api('GET', `/api/v1/forms/${form.id}/submissions${query}`);
    expect(res.status).toBe(200);
    return (res.body as { data: Submission[] }).data;
  };
  const submission = async (id: string) =>
    eventually(async () => {
      const res = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(res.status).toBe(200);
      return res.body as Submission;
    }, 20_000);
  const reasonsOf = (s: Submission) => s.spamReasons.map((r) => `${r.layer}/${r.rule}`);
  const notifications = () => app.mailbox(email).filter((m) => subject.test(m.subject));
  const usedSubmissions = async () => {
    const res = await api('GET', '/api/v1/billing/usage');
    expect(res.status).toBe(200);
    return (res.body as { submissions: { used: number } }).submissions.used;
  };
  const spamSettings = (captcha: SpamSettings['captcha']): SpamSettings => ({
    timeTrapSeconds: TIME_TRAP_SECONDS,
    origins: 'reject',
    captcha,
    rateLimit: { perIpPerMinute: PER_IP_PER_MINUTE, perFormPerMinute: 200, perOrgPerMinute: 400 },
    rules: { blockedWords: [BLOCKED_WORD], blockedDomains: [], maxLinks: 5, disposableEmails: true, threshold: 3 },
    shadow: false,
  });

  /** A script posting to the form as a bot would: JSON answers, the customer site's Origin unless told. */
  const post = (fields: Record<string, string>, origin: string | null = site.origin) =>
    fetch(`${app.url}/f/${form.key}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
  const accepted = async (fields: Record<string, string>) => {
    const res = await post(fields);
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return submission(body.id);
  };
  const timestamp = async () => {
    const res = await fetch(`${app.url}/f/${form.key}/timestamp`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { value: string }).value;
  };
  /** What a script that really does the proof of work sends in `altcha`. */
  const solvedAltcha = async () => {
    const res = await fetch(`${app.url}/f/${form.key}/altcha`);
    expect(res.status).toBe(200);
    const challenge = (await res.json()) as Challenge;
    const solution = await solveChallenge({ challenge, deriveKey, timeout: 30_000 });
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  };
  /** Waits until the page's time-trap timestamp is older than the form's minimum, then sends the form. */
  const sendAfterTimeTrap = async (page: Page) => {
    await page.waitForFunction(
      () => typeof (globalThis as { timestampLoadedAt?: number }).timestampLoadedAt === 'number',
    );
    const loadedAt = await page.evaluate(() => (globalThis as { timestampLoadedAt?: number }).timestampLoadedAt ?? 0);
    const wait = loadedAt + TIME_TRAP_SECONDS * 1000 + 300 - (await page.evaluate(() => Date.now()));
    if (wait > 0) await page.waitForTimeout(wait);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL((u) => u.href.startsWith(app.url));
  };

  describe.sequential(`spam protection end to end (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      site = await startCustomerSite(app.url, () => form.key);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      dash = await context.newPage();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await site?.stop();
    });

    it('signs up, creates a form and turns every spam layer on through the API', async () => {
      await dash.goto(`${app.url}/sign-up`);
      await dash.getByLabel('Name').fill('Ada Lovelace');
      await dash.getByLabel('Email').fill(email);
      await dash.getByLabel('Password').fill(password);
      await dash.getByRole('button', { name: 'Create account' }).click();
      await dash.getByRole('heading', { name: 'Check your email' }).waitFor();
      await dash.goto(await app.mailLink(email, /verify/i));
      await dash.getByRole('link', { name: 'Continue' }).click();
      await dash.waitForURL(/\/onboard$/);
      await dash.getByLabel('Organization name').fill('Analytical Engines');
      await dash.getByRole('button', { name: 'Create organization' }).click();
      await dash.waitForURL(/\/dashboard\/forms$/);
      await dash.goto(`${app.url}/dashboard/forms/create`);
      await dash.getByLabel('Name', { exact: true }).fill('Spam journey');
      await dash.getByRole('button', { name: 'Create form' }).click();
      await dash.waitForURL(/\/dashboard\/forms\/[^/]+\/example$/);
      const slug = decodeURIComponent(dash.url().split('/').at(-2) ?? '');
      const found = await api('GET', `/api/v1/forms?slug=${encodeURIComponent(slug)}`);
      form = (found.body as { data: { id: string; key: string; slug: string }[] }).data[0] as typeof form;
      expect(form?.slug).toBe(slug);

      // The owner's own address is verified at once; the form notifies it.
      expect((await api('POST', '/api/v1/notification-emails', { email })).status).toBe(201);
      const patched = await api('PATCH', `/api/v1/forms/${form.id}`, {
        settings: {
          allowedOrigins: [site.origin],
          notifications: { emails: [email] },
          spam: spamSettings({ provider: 'altcha', secret: null, minScore: null, onFailure: 'flag' }),
        },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.settings.spam).toMatchObject({ origins: 'reject', timeTrapSeconds: TIME_TRAP_SECONDS });
      // Ingest learns of the settings from forms' events (a moment later): a post from another site is refused.
      await eventually(async () => expect((await post({ message: 'probe' }, 'https://evil.example')).status).toBe(403));
    });

    it('a person on the customer site solves the ALTCHA widget, waits, sends: accepted, not spam, notified', async () => {
      const person = await dash.context().newPage();
      await person.goto(site.origin);
      await person.getByLabel('Email').fill('visitor@example.org');
      await person.getByLabel('Message').fill('Hello from a real person, please call me back.');
      // The widget's own checkbox: it fetches a challenge from ingest and solves it in Web Workers.
      await person.getByText("I'm not a robot").click();
      // Solved once the form itself would send a solution (the widget's hidden field, in the form, not its shadow).
      await person.waitForFunction(
        `Boolean(new FormData(document.getElementById('contact')).get('altcha'))`,
        undefined,
        { timeout: 20_000 },
      );
      await screen(person, 'customer-site-altcha-verified');
      await sendAfterTimeTrap(person);
      await person.close();

      const [stored] = await eventually(async () => {
        const list = await submissions();
        expect(list).toHaveLength(1);
        return list;
      }, 20_000);
      const got = await submission(stored?.id ?? '');
      expect(got.spam).toBe(false);
      expect(got.spamReasons).toEqual([]);
      expect(got.fields).toContainEqual({ name: 'email', value: 'visitor@example.org' });
      // Reserved fields are never data: no token, no solution.
      expect(got.fields.map((f) => f.name).sort()).toEqual(['email', 'message']);
      await eventually(() => expect(notifications()).toHaveLength(1), 20_000);
      await eventually(async () => expect(await usedSubmissions()).toBe(1), 20_000);
    }, 60_000);

    it('scripted attacks are flagged with their reasons, or refused with nothing stored', async () => {
      const ts = await timestamp(); // old enough by the time it is used: every attack below solves an ALTCHA first
      const human = { email: 'someone@example.org', message: 'An ordinary question.' };
      await new Promise((r) => setTimeout(r, TIME_TRAP_SECONDS * 1000));

      const noCaptcha = await accepted({ ...human, _formgate_ts: ts });
      expect(noCaptcha.spam).toBe(true);
      expect(reasonsOf(noCaptcha)).toEqual(['captcha/missing']);
      flagged.noCaptcha = noCaptcha.id;

      const tooFast = await accepted({ ...human, _formgate_ts: await timestamp(), altcha: await solvedAltcha() });
      expect(tooFast.spam).toBe(true);
      expect(reasonsOf(tooFast)).toEqual(['time-trap/too-fast']);
      flagged.tooFast = tooFast.id;

      const blockedWord = await accepted({
        ...human,
        message: HOSTILE,
        _formgate_ts: ts,
        altcha: await solvedAltcha(),
      });
      expect(blockedWord.spam).toBe(true);
      expect(reasonsOf(blockedWord)).toEqual(['rules/blocked-word']);
      expect(blockedWord.spamReasons[0]?.detail).toContain(BLOCKED_WORD);
      flagged.blockedWord = blockedWord.id;

      const disposable = await accepted({
        ...human,
        email: 'throwaway@mailinator.com',
        _formgate_ts: ts,
        altcha: await solvedAltcha(),
      });
      expect(disposable.spam).toBe(true);
      expect(reasonsOf(disposable)).toEqual(['rules/disposable-email']);
      flagged.disposable = disposable.id;

      // A foreign site's page: refused before the body is read, nothing stored.
      const before = (await submissions()).length;
      const foreign = await post({ ...human, _formgate_ts: ts }, 'https://evil.example');
      expect(foreign.status).toBe(403);
      expect(((await foreign.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('BLOCKED');
      await new Promise((r) => setTimeout(r, 500));
      expect(await submissions()).toHaveLength(before);
      // None of them notified or counted.
      expect(notifications()).toHaveLength(1);
      expect(await usedSubmissions()).toBe(1);
    }, 60_000);

    it('the dashboard shows each flagged submission’s reasons as text', async () => {
      for (const [name, id] of Object.entries(flagged)) {
        const expected = await submission(id);
        await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/submissions/${id}`);
        const list = dash.getByRole('list', { name: 'Spam checks' });
        await list.waitFor();
        const items = list.getByRole('listitem');
        await expect(items.count()).resolves.toBe(expected.spamReasons.length);
        for (const [i, reason] of expected.spamReasons.entries()) {
          const text = (await items.nth(i).textContent()) ?? '';
          expect(text, name).toContain(reason.rule);
          expect(text, name).toContain(reason.detail);
        }
        if (name === 'blockedWord') {
          // The hostile message is shown as the text it is, never as markup.
          await dash.getByText(HOSTILE, { exact: true }).waitFor();
          expect(await dash.locator('main img[src="x"]').count()).toBe(0);
          expect(await dash.title()).not.toBe('pwned');
          await screen(dash, 'flagged-submission');
        }
      }
    }, 60_000);

    it('"Not spam" on the dashboard releases one: not spam from then on, notified once, counted once', async () => {
      const id = flagged.blockedWord ?? '';
      await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/submissions/${id}`);
      await dash.getByRole('button', { name: 'Not spam' }).click();
      await dash.getByRole('alertdialog').getByRole('button', { name: 'Not spam' }).click();
      await dash.getByText('Marked as not spam since these were recorded.').waitFor({ timeout: 20_000 });
      const released = await submission(id);
      expect(released.spam).toBe(false);
      // The reasons stay, for the record.
      expect(reasonsOf(released)).toEqual(['rules/blocked-word']);
      await eventually(() => expect(notifications()).toHaveLength(2), 20_000);
      await eventually(async () => expect(await usedSubmissions()).toBe(2), 20_000);
      // Once: a second release changes nothing, and no late duplicate arrives.
      expect((await api('PATCH', `/api/v1/forms/${form.id}/submissions/${id}`, { spam: false })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(notifications()).toHaveLength(2);
      expect(await usedSubmissions()).toBe(2);
    }, 60_000);

    it('Turnstile, switched to in the Spam protection panel, through the local verifier: a solved token is accepted, a rejected one flagged', async () => {
      app.verifier.program(TURNSTILE_GOOD, { outcome: 'success', hostname: 'localhost' });
      app.verifier.program(TURNSTILE_BAD, { outcome: 'failure', errorCodes: ['invalid-input-response'] });
      // Switched in the dashboard's Spam protection panel: the form's other keys stay as they were.
      await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/settings`);
      const captcha = dash.getByRole('group', { name: 'Captcha' });
      await captcha.getByLabel('Provider').selectOption('turnstile');
      await captcha.getByLabel('Secret key').fill(SPAM_JOURNEY_SECRETS.turnstile);
      await dash.getByRole('button', { name: 'Save spam protection' }).click();
      await dash.getByText('Spam protection saved').waitFor({ timeout: 20_000 });
      const saved = await api('GET', `/api/v1/forms/${form.id}`);
      const { captcha: _altcha, ...unchanged } = spamSettings(null);
      expect(saved.body.settings.spam).toMatchObject({
        ...unchanged,
        // Write-only: never answered, only whether one is set.
        captcha: { provider: 'turnstile', secret: null, secretSet: true, minScore: null, onFailure: 'flag' },
      });
      // Ingest has the new provider once a post without any token is flagged for Turnstile.
      const ts = await timestamp();
      await eventually(async () => {
        const probe = await accepted({ message: 'probe', _formgate_ts: ts });
        expect(probe.spamReasons.find((r) => r.layer === 'captcha')?.detail).toMatch(/turnstile/i);
      }, 20_000);

      const before = new Set((await submissions()).map((s) => s.id));
      const [good, bad] = await Promise.all(
        [TURNSTILE_GOOD, TURNSTILE_BAD].map(async (token) => {
          const page = await dash.context().newPage();
          await page.goto(`${site.origin}/turnstile?token=${encodeURIComponent(token)}`);
          await page.getByLabel('Email').fill(`${token}@example.org`);
          await page.getByLabel('Message').fill('Sent through Turnstile.');
          await sendAfterTimeTrap(page);
          await page.close();
          return eventually(async () => {
            const found = (await submissions()).find(
              (s) => !before.has(s.id) && s.fields.some((f) => f.value === `${token}@example.org`),
            );
            if (!found) throw new Error(`no submission with ${token} yet`);
            return submission(found.id);
          }, 20_000);
        }),
      );
      expect(good?.spam).toBe(false);
      expect(good?.spamReasons).toEqual([]);
      expect(bad?.spam).toBe(true);
      expect(reasonsOf(bad as Submission)).toEqual(['captcha/failed']);
      expect(bad?.spamReasons[0]?.detail).toContain('invalid-input-response');
      expect(app.verifier.callsFor(TURNSTILE_GOOD)).toHaveLength(1);
      expect(app.verifier.callsFor(TURNSTILE_GOOD)[0]?.secret).toBe(SPAM_JOURNEY_SECRETS.turnstile);
      await eventually(() => expect(notifications()).toHaveLength(3), 20_000);
    }, 60_000);

    it('over the per-IP limit: 429 RATE_LIMITED with Retry-After; the overview counts the blocked requests', async () => {
      let limited: Response | undefined;
      for (let i = 0; i < PER_IP_PER_MINUTE * 2 && !limited; i++) {
        // From a foreign site: each one refused (403) until the limit answers first (429); none is stored.
        const res = await post({ message: 'flood' }, 'https://evil.example');
        if (res.status === 429) limited = res;
        else {
          expect(res.status).toBe(403);
          await res.arrayBuffer();
        }
      }
      if (!limited) throw new Error(`never rate limited in ${PER_IP_PER_MINUTE * 2} requests`);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`).toBe(
        true,
      );
      expect(((await limited.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('RATE_LIMITED');

      const blocked = await eventually(async () => {
        const res = await api('GET', `/api/v1/forms/${form.id}`);
        expect(res.body.blockedCount).toBeGreaterThan(PER_IP_PER_MINUTE / 2);
        return res.body.blockedCount as number;
      }, 20_000);
      await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/overview`);
      const stat = dash.getByTitle(/Requests refused by a spam layer/);
      await expect(stat.locator('dd').textContent()).resolves.toBe(blocked.toLocaleString('en-US'));
      await screen(dash, 'overview-blocked');
      // Submission contents, captcha tokens and secrets never reach the logs.
      const logs = app.logs();
      for (const secret of [HOSTILE, 'visitor@example.org', 'throwaway@mailinator', TURNSTILE_GOOD, TURNSTILE_BAD]) {
        expect(logs).not.toContain(secret);
      }
      expect(logs).not.toContain(SPAM_JOURNEY_SECRETS.turnstile);
    }, 60_000);
  });
}
