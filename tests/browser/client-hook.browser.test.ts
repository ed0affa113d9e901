import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { flushApiRecorder, recordedApiSamples } from '../harness/api-recorder.ts';
import { launchChromium } from '../harness/chromium.ts';
import { startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';
import { type ClientPageSite, serveClientPage } from './client-page.ts';

/**
 * A site's contact form written with `useForm` from `@formgate/client/react`: the client as its build ships it
 * (`scripts/build.mjs`), bundled with React from node_modules by esbuild, as a site's bundler would. The state is
 * shown in the page: `submitting` ("Sending…", the button disabled), `succeeded`, the form's errors and each field's
 * errors under the field.
 */
const PAGE_SOURCE = `
import { useForm } from './client/react.js';
import { createRoot } from 'react-dom/client';

function Contact() {
  const [state, handleSubmit, reset] = useForm(window.FORM_KEY, { baseUrl: window.FORMGATE_URL, retries: 0 });
  if (state.succeeded) {
    return <p role="status">Thanks! <span id="submission-id">{state.result.id}</span> <button onClick={reset}>Again</button></p>;
  }
  const fieldError = (name) =>
    state.errors?.fields[name]?.map((e) => <span key={e.code} className="field-error" data-field={name}>{e.code}: {e.message}</span>);
  return (
    <form onSubmit={handleSubmit}>
      <label>Email <input name="email" type="email" /></label>
      {fieldError('email')}
      <label>Message <textarea name="message" /></label>
      {fieldError('message')}
      {state.errors?.form.map((e) => <p key={e.code} role="alert">{e.code}</p>)}
      {state.submitting && <p id="sending">Sending…</p>}
      <button type="submit" disabled={state.submitting}>Send</button>
      <button type="button" onClick={() => handleSubmit({ email: 'object@example.com', message: 'as an object' })}>Send object</button>
    </form>
  );
}
createRoot(document.getElementById('root')).render(<Contact />);
`;

describe('@formgate/client/react in Chromium: useForm against embedded Formgate', () => {
  let app: TestApp;
  let form: TestForm;
  let site: ClientPageSite;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    app = await startTestApp();
    form = await app.createForm({ name: 'Hook' });
    site = await serveClientPage({
      pageSource: PAGE_SOURCE,
      title: 'Contact',
      formKey: form.key,
      formgateUrl: app.baseUrl,
      // The unbundled build, from a plain <script type=module>.
      extraBody: `<script type="module">
  import { createFormgateClient } from '/client/index.js';
  window.plainSubmit = (data) => createFormgateClient({ baseUrl: window.FORMGATE_URL }).submit(window.FORM_KEY, data);
</script>
`,
    });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await app?.stop();
  });

  const storedFields = async (id: string) => {
    const res = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
    return res.body.fields;
  };

  it('a submitted form succeeds; then a plain object, and the unbundled build from a <script type=module>', async () => {
    await page.goto(site.url);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Message').fill('<b>Hello</b> from the hook');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.locator('#submission-id').textContent()).toMatch(/\S/);
    const id = (await page.locator('#submission-id').textContent()) as string;
    expect(await storedFields(id)).toEqual([
      { name: 'email', value: 'ada@example.com' },
      { name: 'message', value: '<b>Hello</b> from the hook' },
    ]);

    await page.getByRole('button', { name: 'Again' }).click();
    await page.getByRole('button', { name: 'Send object' }).click();
    await page.locator('#submission-id').waitFor();
    const objectId = (await page.locator('#submission-id').textContent()) as string;
    expect(objectId).not.toBe(id);
    expect(await storedFields(objectId)).toEqual([
      { name: 'email', value: 'object@example.com' },
      { name: 'message', value: 'as an object' },
    ]);

    const plain = await page.evaluate(() =>
      (globalThis as unknown as { plainSubmit: (d: unknown) => Promise<{ id: string }> }).plainSubmit({
        via: 'script',
      }),
    );
    expect(await storedFields(plain.id)).toEqual([{ name: 'via', value: 'script' }]);
  });

  it('while the request is in flight the form is submitting, its button disabled; then it succeeds', async () => {
    await page.goto(site.url);
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    let held = 0;
    // Every request to the endpoint (a CORS preflight too) waits until the test has looked at the page.
    const endpoint = `${app.baseUrl}/f/${form.key}`;
    await page.route(endpoint, async (route) => {
      held += 1;
      await released;
      await route.continue();
    });
    // Whatever happens here, the next test's requests are not held.
    onTestFinished(async () => {
      release();
      await page.unroute(endpoint);
    });
    const send = page.getByRole('button', { name: 'Send', exact: true });
    expect(await send.isEnabled()).toBe(true);
    expect(await page.locator('#sending').count()).toBe(0);
    await page.getByLabel('Email').fill('patient@example.com');
    await page.getByLabel('Message').fill('held on the way');
    await send.click();
    await expect.poll(() => held).toBeGreaterThan(0);
    await page.locator('#sending').waitFor();
    expect(await send.isDisabled()).toBe(true);
    expect(await page.locator('#submission-id').count()).toBe(0);

    release();
    await page.locator('#submission-id').waitFor();
    expect(await page.locator('#sending').count()).toBe(0);
    const id = (await page.locator('#submission-id').textContent()) as string;
    expect(await storedFields(id)).toEqual([
      { name: 'email', value: 'patient@example.com' },
      { name: 'message', value: 'held on the way' },
    ]);
  });

  it('a field-level refusal shows under its field, and nothing is stored', async () => {
    await page.goto(site.url);
    const before = (await app.listSubmissions(form.id)).data.length;
    await page.getByLabel('Email').fill('long@example.com');
    await page.getByLabel('Message').fill('x'.repeat(70_000)); // over the 64 KiB of one value
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const error = page.locator('.field-error[data-field="message"]');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^FIELD_VALUE_TOO_LONG: /);
    expect(await page.locator('.field-error[data-field="email"]').count()).toBe(0);
    expect(await page.locator('#submission-id').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).toBe(true);
    expect((await app.listSubmissions(form.id)).data.length).toBe(before);
  });

  it("records Chromium's answers for the API conformance check, beside the test's own fetch", async () => {
    await flushApiRecorder();
    // Only the page posts a body to the form's endpoint (a sent form, a value over 64 KiB): these two samples come
    // from launchChromium's response hook.
    expect(recordedApiSamples().map((s) => `${s.method} ${s.route} ${s.status}`)).toEqual(
      expect.arrayContaining(['POST /f/:formKey 200', 'POST /f/:formKey 413']),
    );
  });
});
