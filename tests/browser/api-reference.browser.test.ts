import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshotBoth } from '../harness/chromium.ts';
import { startTestApp, type TestApp } from '../harness/embedded-app.ts';

/** `/docs/api`: Scalar's self-hosted bundle renders the served description under the page's strict policy. */
describe('the API reference page', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('renders every tag and an operation from /api/v1/openapi.json, calling no other origin but for fonts it may not load', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    const elsewhere = new Set<string>();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.origin !== app.baseUrl && url.protocol !== 'data:') elsewhere.add(url.hostname);
    });
    await page.goto(`${app.baseUrl}/docs/api#tag/forms/POST/api/v1/forms`);
    await expect.poll(() => page.locator('body').textContent(), { timeout: 20_000 }).toContain('Create a form');
    const text = (await page.locator('body').textContent()) ?? '';
    for (const tag of ['Forms', 'Submissions', 'Webhooks', 'API keys', 'Public endpoint']) expect(text).toContain(tag);
    await screenshotBoth(page, 'api-reference', 'create-form');
    expect(errors).toEqual([]);
    // The bundle's @font-face points at Scalar's font host: the policy refuses it (system fonts are used).
    expect([...elsewhere].filter((host) => host !== 'fonts.scalar.com')).toEqual([]);
  });
});
