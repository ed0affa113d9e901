import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@formgate/store/sqlite';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/chromium.ts';
import { startClamd, type TestClamd } from '../harness/clamd.ts';
import { eventually, startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';
import { type ClientPageSite, serveClientPage } from './client-page.ts';
import { PDF_HEAD, recordRequests, SCAN_BYTES, UPLOAD_PAGE_SOURCE, writeRandomFile } from './direct-upload-page.ts';

describe('direct uploads in Chromium: a 100 MB file from a page on another origin, embedded mode', () => {
  let app: TestApp;
  let clamd: TestClamd;
  let form: TestForm;
  let site: ClientPageSite;
  let browser: Browser;
  let page: Page;
  let scanSha256: string;
  const filesDir = mkdtempSync(join(tmpdir(), 'fg-direct-upload-'));
  const scanPath = join(filesDir, 'scan.pdf');
  const photoPath = join(filesDir, 'photo.png');

  beforeAll(async () => {
    // The test plans (ROOMY_PLANS_FILE) set no maxFileMb, and a new form none either: 100 MiB is the limit. Every
    // file is scanned by a real clamd, whose stream limit is above it.
    clamd = await startClamd({ streamMaxBytes: 110 * 1024 * 1024 });
    app = await startTestApp({ CLAMAV_ADDRESS: clamd.address, CLAMAV_MAX_FILE_BYTES: String(110 * 1024 * 1024) });
    form = await app.createForm({ name: 'Scans' });
    site = await serveClientPage({
      pageSource: UPLOAD_PAGE_SOURCE,
      title: 'Send a scan',
      formKey: form.key,
      formgateUrl: app.baseUrl,
    });
    scanSha256 = await writeRandomFile(scanPath, PDF_HEAD, SCAN_BYTES);
    // A PDF under an image's name: Chromium types it by its extension, image/png.
    writeFileSync(photoPath, Buffer.concat([PDF_HEAD, randomBytes(16 * 1024)]));
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await app?.stop();
    await clamd?.close();
    rmSync(filesDir, { recursive: true, force: true });
  });

  it('a 100 MiB PDF is put straight to storage, stored whole, scanned before it is served, and gone with its submission', async () => {
    await page.goto(site.url);
    const requests = recordRequests(page);
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Scan').setInputFiles(scanPath);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('#submission-id').waitFor({ timeout: 60_000 });
    const id = (await page.locator('#submission-id').textContent()) as string;
    expect(id).toMatch(/\S/);

    // The browser's side: where to put the file, the file itself to Formgate's PUT route, then a small submission.
    const endpoint = `${app.baseUrl}/f/${form.key}`;
    const grants = requests.filter((r) => r.method() === 'POST' && r.url() === `${endpoint}/uploads`);
    const puts = requests.filter((r) => r.method() === 'PUT' && r.url().startsWith(`${endpoint}/uploads/`));
    const posts = requests.filter((r) => r.method() === 'POST' && r.url() === endpoint);
    expect([grants.length, puts.length, posts.length]).toEqual([1, 1, 1]);
    const [grant, put, post] = [grants[0], puts[0], posts[0]] as [Request, Request, Request];
    expect(requests.indexOf(grant)).toBeLessThan(requests.indexOf(put));
    expect(requests.indexOf(put)).toBeLessThan(requests.indexOf(post));

    expect((await grant.response())?.status()).toBe(201);
    expect(JSON.parse(grant.postData() ?? '')).toEqual({
      files: [{ field: 'scan', filename: 'scan.pdf', contentType: 'application/pdf', size: SCAN_BYTES }],
    });

    expect(new URL(put.url()).searchParams.get('token')).toMatch(/\S/);
    const putHeaders = await put.allHeaders();
    expect(putHeaders['content-type']).toBe('application/pdf');
    expect(putHeaders['content-length']).toBe(String(SCAN_BYTES));
    expect((await put.response())?.status()).toBe(204);

    expect((await post.response())?.status()).toBe(200);
    expect((await post.allHeaders())['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    const body = post.postDataBuffer();
    expect(body?.length).toBeLessThan(10 * 1024);
    const sent = new URLSearchParams(body?.toString('utf8'));
    expect([...sent.keys()]).toEqual(['name', '_uploads']);
    expect(sent.get('name')).toBe('Ada Lovelace');
    expect(sent.get('_uploads')).toMatch(/\S/);

    // Formgate's side: the submission lists the file (the untouched Photo input is left out), whole, once clamd has
    // read all of it.
    const submission = await eventually(async () => {
      const res = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      if (res.status !== 200) throw new Error(`submission ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      const got = res.body as { fields: unknown; files: { blobKey: string; scan: { status: string } | null }[] };
      if (got.files[0]?.scan?.status === 'pending') throw new Error('not scanned yet');
      return got;
    }, 60_000);
    expect(submission.fields).toEqual([{ name: 'name', value: 'Ada Lovelace' }]);
    expect(submission.files).toEqual([
      expect.objectContaining({
        field: 'scan',
        filename: 'scan.pdf',
        contentType: 'application/pdf',
        size: SCAN_BYTES,
        scan: expect.objectContaining({ status: 'clean' }),
      }),
    ]);

    const { blobKey } = submission.files[0] as { blobKey: string };
    const link = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/files/${blobKey}/link`);
    expect(link.status).toBe(200);
    const download = await fetch(new URL(link.body.url as string, app.baseUrl));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-length')).toBe(String(SCAN_BYTES));
    const hash = createHash('sha256');
    let downloaded = 0;
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      downloaded += chunk.length;
    }
    expect(downloaded).toBe(SCAN_BYTES);
    expect(hash.digest('hex')).toBe(scanSha256);

    // Deleted with its submission: the link no longer serves it, and blobs.db no longer holds it.
    expect((await app.api('DELETE', `/api/v1/forms/${form.id}/submissions/${id}`)).status).toBe(204);
    await eventually(async () => {
      const blobs = openSqlite(join(app.dataDir, 'blobs.db'));
      try {
        expect(blobs.prepare('SELECT count(*) FROM blobs WHERE key = ?').pluck().get(blobKey)).toBe(0);
      } finally {
        blobs.close();
      }
    }, 15_000);
    expect((await fetch(new URL(link.body.url as string, app.baseUrl))).status).toBe(404);
  }, 180_000);

  it('a PDF named photo.png (sent as image/png) is refused: FILE_TYPE_MISMATCH under its field, nothing stored', async () => {
    await page.goto(site.url);
    const before = (await app.listSubmissions(form.id)).data.length;
    const requests = recordRequests(page);
    await page.getByLabel('Name').fill('Mallory');
    await page.getByLabel('Photo').setInputFiles(photoPath);
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    // The server names the field; the hook lists such problems under `errors.fields`, not the form's.
    const error = page.locator('.field-error[data-field="photo"]');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^FILE_TYPE_MISMATCH: /);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('.field-error').count()).toBe(1);
    expect(await page.locator('#submission-id').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).toBe(true);

    // The type is only checked once the bytes are stored: granted and put, refused on the submission.
    const endpoint = `${app.baseUrl}/f/${form.key}`;
    const grant = requests.find((r) => r.method() === 'POST' && r.url() === `${endpoint}/uploads`);
    expect(JSON.parse(grant?.postData() ?? '')).toEqual({
      files: [{ field: 'photo', filename: 'photo.png', contentType: 'image/png', size: PDF_HEAD.length + 16 * 1024 }],
    });
    const put = requests.find((r) => r.method() === 'PUT' && r.url().startsWith(`${endpoint}/uploads/`));
    expect((await put?.response())?.status()).toBe(204);
    const post = requests.find((r) => r.method() === 'POST' && r.url() === endpoint);
    expect((await post?.response())?.status()).toBe(400);
    expect((await app.listSubmissions(form.id)).data.length).toBe(before);
  });
});
