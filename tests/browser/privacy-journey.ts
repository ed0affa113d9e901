import { readFileSync } from 'node:fs';
import type { ErasureKeysDto, SignedErasureReceipt, SubjectAccessDto } from '@formgate/contracts';
import { verifyErasureReceipt } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageApi, screenshotBoth, seriousA11yViolations } from '../harness/chromium.ts';

/** A running Formgate to drive: its public URL and the first link of a mail sent to a user. */
export interface PrivacyJourneyTarget {
  url: string;
  mailLink(email: string, subject: RegExp): Promise<string>;
}

interface Submission {
  id: string;
  fields: { name: string; value: string }[];
}

const FORM_NAME = 'Privacy journey';
/** A word no one else sends, and markup that must stay text on every screen. */
const MARKER = 'quokkazanzibar31';
const HOSTILE = `Please forget me, ${MARKER} <img src=x onerror="document.title='pwned'">`;
const KEPT_MARKER = 'wombatkept31';

/**
 * Issue 31's journey in real Chromium, on Organization → Privacy: an owner sets the organization's retention
 * default (the form's settings show it in force), exports what is held about a submitter (asked in another letter
 * case), erases it behind a confirmation, downloads the signed receipt and verifies it against the instance's public
 * keys (and not once altered); the erasure is listed, the submission is gone, another submitter's stays. Every screen
 * gets an axe-core pass and screenshots (`.run/artifacts/screenshots/<suite>-privacy/`).
 */
export function describePrivacyJourney(suite: string, target: () => PrivacyJourneyTarget) {
  const stamp = Date.now();
  const owner = `owner.${stamp}@example.com`;
  const password = 'correct horse battery staple';
  /** The submitter who asks to be forgotten, as they typed their address. */
  const subject = `Subject.${stamp}@Example.com`;
  const other = `someone.else.${stamp}@example.org`;
  let app: PrivacyJourneyTarget;
  let browser: Browser;
  let dash: Page;
  let form: { id: string; key: string; slug: string; name: string };
  let subjectSubmissionId: string;
  let otherSubmissionId: string;
  let exportedAddressKey: string;
  let receipt: SignedErasureReceipt;
  let title: string;

  async function screen(page: Page, name: string) {
    await page.waitForLoadState('networkidle');
    await screenshotBoth(page, `${suite}-privacy`, name);
    expect((await seriousA11yViolations(page)).join('\n'), `axe on ${name}`).toBe('');
  }
  /** A same-origin API call from the dashboard's page (its session cookie). */
  const api = (method: string, path: string, body?: unknown) => pageApi(dash, method, path, body);
  const submissions = async () => {
    const res = await api('GET', `/api/v1/forms/${form.id}/submissions`);
    expect(res.status).toBe(200);
    return (res.body as { data: Submission[] }).data;
  };
  /** A submission posted by a script: JSON in and out, no Origin. */
  const post = async (fields: Record<string, string>) => {
    const res = await fetch(`${app.url}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(fields),
    });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body.id;
  };
  /** The file a click on `button` hands the browser, as text. */
  const download = async (button: Locator) => {
    const [file] = await Promise.all([dash.waitForEvent('download'), button.click()]);
    return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
  };
  /**
   * Where on the page `needle` (any case) still is: `html` (text and attributes) and the fields whose value holds it
   * (a value typed is not in the markup), each as "its form's name › its label".
   */
  const onPage = (needle: string) =>
    dash.evaluate((n) => {
      // The page's DOM, as far as this check reads it (the tests' TypeScript has no DOM library).
      interface Field {
        value: string;
        name: string;
        labels: ArrayLike<{ textContent: string | null }> | null;
        closest(selector: string): { getAttribute(name: string): string | null } | null;
      }
      const { document } = globalThis as unknown as {
        document: { documentElement: { outerHTML: string }; querySelectorAll(s: string): Iterable<Field> };
      };
      const fields = [...document.querySelectorAll('input, textarea')]
        .filter((f) => f.value.toLowerCase().includes(n))
        .map(
          (f) => `${f.closest('form')?.getAttribute('aria-label') ?? '?'} › ${f.labels?.[0]?.textContent ?? f.name}`,
        );
      return { html: document.documentElement.outerHTML.toLowerCase().includes(n), fields };
    }, needle.toLowerCase());
  /** A description list's terms and what each says, as shown. */
  const factsOf = async (list: Locator) => {
    const [terms, details] = await Promise.all([
      list.locator('dt').allTextContents(),
      list.locator('dd').allTextContents(),
    ]);
    expect(details).toHaveLength(terms.length);
    return Object.fromEntries(terms.map((t, i) => [t, details[i]]));
  };
  /** Nothing of the submitter's markup became markup: no image, no script ran. */
  const markupStayedText = async () => {
    expect(await dash.locator('img[src="x"]').count()).toBe(0);
    expect(await dash.title()).toBe(title);
  };
  const privacyPage = () => dash.goto(`${app.url}/dashboard/organization/privacy`);
  const panel = (name: string) => dash.getByRole('region', { name, exact: true });

  describe.sequential(`the privacy page end to end (${suite}, Chromium)`, () => {
    beforeAll(async () => {
      app = target();
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
      dash = await context.newPage();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('signs up an owner with the emailed link and creates a form', async () => {
      await dash.goto(`${app.url}/sign-up`);
      await dash.getByLabel('Name').fill('Ada Lovelace');
      await dash.getByLabel('Email').fill(owner);
      await dash.getByLabel('Password').fill(password);
      await dash.getByRole('button', { name: 'Create account' }).click();
      await dash.getByRole('heading', { name: 'Check your email' }).waitFor();
      await dash.goto(await app.mailLink(owner, /verify/i));
      await dash.getByRole('link', { name: 'Continue' }).click();
      await dash.waitForURL(/\/onboard$/);
      await dash.getByLabel('Organization name').fill('Analytical Engines');
      await dash.getByRole('button', { name: 'Create organization' }).click();
      await dash.waitForURL(/\/dashboard\/forms$/);
      await dash.goto(`${app.url}/dashboard/forms/create`);
      await dash.getByLabel('Name', { exact: true }).fill(FORM_NAME);
      await dash.getByRole('button', { name: 'Create form' }).click();
      await dash.waitForURL(/\/dashboard\/forms\/[^/]+\/example$/);
      const slug = decodeURIComponent(dash.url().split('/').at(-2) ?? '');
      const found = await api('GET', `/api/v1/forms?slug=${encodeURIComponent(slug)}`);
      form = (found.body as { data: (typeof form)[] }).data[0] as typeof form;
      expect(form?.slug).toBe(slug);
      expect(form.name).toBe(FORM_NAME);
      title = await dash.title();
    });

    it('receives two submissions from a script: the subject’s (hostile markup) and another person’s', async () => {
      subjectSubmissionId = await post({ email: subject, message: HOSTILE });
      otherSubmissionId = await post({ email: other, message: `Keep this one, ${KEPT_MARKER}` });
      await eventually(async () => {
        const ids = (await submissions()).map((s) => s.id).sort();
        expect(ids).toEqual([subjectSubmissionId, otherSubmissionId].sort());
      }, 20_000);
    });

    it('sets the organization’s retention default to 30 days; the form’s settings show it in force', async () => {
      await privacyPage();
      const retention = panel('Retention');
      await retention.getByText('unless a form sets its own.').waitFor();
      for (const name of ["Export a person's data", "Erase a person's data", 'Past erasures']) {
        await panel(name).waitFor();
      }
      await panel('Past erasures').getByText('No erasures yet.').waitFor();
      await screen(dash, 'privacy');

      await retention.getByLabel('Delete after a number of days').check();
      await retention.getByLabel('Days to keep submissions').fill('30');
      await retention.getByRole('button', { name: 'Save retention' }).click();
      await dash
        .getByText('Retention saved. Submissions are deleted after 30 days unless a form sets its own.')
        .first()
        .waitFor();
      await retention.getByText('Submissions are deleted after 30 days unless a form sets its own.').waitFor();
      const policy = await api('GET', '/api/v1/retention');
      expect(policy.status).toBe(200);
      expect(policy.body).toMatchObject({ days: 30 });
      await screen(dash, 'privacy-retention-saved');

      await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/settings`);
      const own = dash.getByRole('region', { name: 'Retention', exact: true });
      await own.getByText("Submissions are deleted after 30 days (the organization's default).").waitFor();
      expect(await own.getByLabel('Organization default').isChecked()).toBe(true);
      await screen(dash, 'form-settings-retention');
    }, 90_000);

    it('exports the subject’s data, asked in another letter case: 1 submission of the form, markup left as text', async () => {
      await privacyPage();
      const exporting = dash.getByRole('form', { name: "Export a person's data" });
      await exporting.getByLabel('Email address').fill(subject.toUpperCase());
      await exporting.getByRole('button', { name: 'Export data' }).click();
      await dash.getByText('1 submission found').first().waitFor();
      const result = dash.getByRole('region', { name: 'Data export' });
      await result.waitFor();
      const facts = await factsOf(result);
      expect(facts).toMatchObject({
        Address: subject.toUpperCase(),
        Submissions: '1 submission',
        Forms: FORM_NAME,
      });
      await markupStayedText();

      // The whole answer, as the owner would send it on: the subject's submission only, its markup verbatim.
      const file = await download(result.getByRole('button', { name: 'Download JSON' }));
      expect(file.name).toMatch(/^subject-access-\d{4}-\d{2}-\d{2}\.json$/);
      const exported = JSON.parse(file.text) as SubjectAccessDto;
      expect(exported.type).toBe('subject-access/1');
      expect(exported.submissions.map((s) => [s.id, s.formId, s.formName])).toEqual([
        [subjectSubmissionId, form.id, FORM_NAME],
      ]);
      expect(exported.submissions[0]?.fields).toEqual(
        expect.arrayContaining([
          { name: 'email', value: subject },
          { name: 'message', value: HOSTILE },
        ]),
      );
      expect(file.text).not.toContain(KEPT_MARKER);
      exportedAddressKey = exported.addressKey;
      await markupStayedText();
      await screen(dash, 'privacy-export');
    }, 90_000);

    it('erases the subject’s data behind a confirmation; the signed receipt verifies, and not once altered', async () => {
      // The export's summary names the address; it goes before the erasure.
      await dash.getByRole('button', { name: 'Dismiss export' }).click();
      await dash.getByRole('region', { name: 'Data export' }).waitFor({ state: 'detached' });

      const erasing = dash.getByRole('form', { name: "Erase a person's data" });
      await erasing.getByLabel('Email address').fill(subject.toLowerCase());
      await erasing.getByRole('button', { name: 'Erase data' }).click();
      const dialog = dash.getByRole('alertdialog', { name: `Erase all data of ${subject.toLowerCase()}?` });
      await dialog.getByText('This cannot be undone.').waitFor();
      await dialog.getByText(/Every submission of Analytical Engines in which this address appears/).waitFor();
      await screen(dash, 'privacy-erase-confirm');
      await dialog.getByRole('button', { name: 'Erase permanently' }).click();
      await dash.getByText('Erased 1 submission', { exact: true }).first().waitFor({ timeout: 45_000 });
      await dialog.waitFor({ state: 'detached' });

      const shown = dash.getByRole('region', { name: 'Erasure receipt', exact: true });
      await shown.waitFor();
      const facts = await factsOf(shown);
      expect(facts).toMatchObject({
        'Submissions erased': '1',
        Forms: FORM_NAME,
        'Submission ids': subjectSubmissionId,
      });
      // The address is nowhere on the page (text, attributes, field values, the export panel's too), in any case;
      // nor what was sent.
      expect(await erasing.getByLabel('Email address').inputValue()).toBe('');
      expect(await onPage(subject)).toEqual({ html: false, fields: [] });
      expect(await onPage(MARKER)).toEqual({ html: false, fields: [] });
      await markupStayedText();
      await screen(dash, 'privacy-erased');

      const file = await download(shown.getByRole('button', { name: 'Download receipt' }));
      expect(file.text.toLowerCase()).not.toContain(subject.toLowerCase());
      receipt = JSON.parse(file.text) as SignedErasureReceipt;
      expect(file.name).toBe(`erasure-receipt-${receipt.receipt.id}.json`);
      expect(receipt.receipt).toMatchObject({
        type: 'erasure-receipt/1',
        count: 1,
        forms: [form.id],
        // The same keyed hash the export named: the address, whatever its case.
        addressKey: exportedAddressKey,
        requestedBy: { via: 'session' },
      });
      expect(receipt.receipt.submissions.map((s) => s.id)).toEqual([subjectSubmissionId]);

      const keys = await fetch(`${app.url}/api/v1/erasures/keys`);
      expect(keys.status).toBe(200);
      const { keys: publicKeys } = (await keys.json()) as ErasureKeysDto;
      expect(publicKeys.map((k) => k.keyId)).toContain(receipt.signature.keyId);
      expect(verifyErasureReceipt(JSON.parse(file.text), publicKeys)).toBe(true);

      // One character of the receipt changed (in its address key): the signature no longer holds.
      const at = file.text.indexOf(receipt.receipt.addressKey) + 3;
      const altered = `${file.text.slice(0, at)}${file.text[at] === 'A' ? 'B' : 'A'}${file.text.slice(at + 1)}`;
      expect(altered).not.toBe(file.text);
      expect(verifyErasureReceipt(JSON.parse(altered), publicKeys)).toBe(false);
    }, 90_000);

    it('lists the erasure in Past erasures, whose receipt is the one downloaded', async () => {
      const list = dash.getByRole('list', { name: 'Past erasures' });
      const item = list.getByRole('listitem').filter({ hasText: '1 submission' });
      await item.waitFor();
      expect(await list.getByRole('listitem').count()).toBe(1);
      await item.getByText(`By ${owner} · ${FORM_NAME}`).waitFor();
      await item.getByRole('button', { name: /^Show the receipt of / }).click();
      const stored = dash.getByRole('region', { name: `Receipt of erasure ${receipt.receipt.id}` });
      await stored.getByText(subjectSubmissionId).waitFor();
      const file = await download(stored.getByRole('button', { name: 'Download receipt' }));
      expect(JSON.parse(file.text)).toEqual(receipt);
      await screen(dash, 'privacy-past-erasures');
    });

    it('the erased submission is gone from the form; the other person’s is still there', async () => {
      const left = await submissions();
      expect(left.map((s) => s.id)).toEqual([otherSubmissionId]);
      expect(left[0]?.fields).toContainEqual({ name: 'email', value: other });
      expect(JSON.stringify(left).toLowerCase()).not.toContain(MARKER);
      expect((await api('GET', `/api/v1/forms/${form.id}/submissions/${subjectSubmissionId}`)).status).toBe(404);

      await dash.goto(`${app.url}/dashboard/forms/${encodeURIComponent(form.slug)}/submissions/`);
      await dash.waitForURL(new RegExp(`/submissions/${otherSubmissionId}$`));
      await dash.getByRole('article').getByText(other).first().waitFor();
      expect(await onPage(subject)).toEqual({ html: false, fields: [] });
      expect(await onPage(MARKER)).toEqual({ html: false, fields: [] });
      await screen(dash, 'submissions-after-erasure');
    });
  });
}
