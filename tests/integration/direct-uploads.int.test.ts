import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFormgateClient, FormgateError } from '@formgate/client';
import type { FileLinkDto, SubmissionDto, UploadsGrant } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../harness/embedded-app.ts';
import { expectRejected } from './ingest/ingest-client.ts';

const MiB = 1024 * 1024;
/** The first bytes of a PNG and of a PDF: what the type check reads. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj <<>> endobj\n');

/**
 * Issue 33's direct uploads in embedded mode, through the running process: the public endpoint hands out where to
 * PUT each file (here, its own PUT route into `DATA_DIR/blobs.db`), the submission names them by `_uploads`, and is
 * accepted only when each is stored whole and is of its declared type, within the form's and the plan's limits.
 */
describe('embedded mode: direct uploads', () => {
  let app: TestApp;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-plans-'));
    const plans = join(dir, 'plans.json');
    writeFileSync(
      plans,
      JSON.stringify({
        defaultPlan: 'roomy',
        plans: [
          {
            id: 'roomy',
            name: 'Roomy',
            limits: { submissionsPerMonth: 100_000, emailsPerMonth: 100_000, maxFileMb: 101 },
          },
        ],
      }),
    );
    app = await startTestApp({ PLANS_FILE: plans });
  });
  afterAll(() => app?.stop());

  const grant = async (form: TestForm, files: unknown[], headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}/f/${form.key}/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify({ files }),
    });
  const granted = async (form: TestForm, files: unknown[], headers: Record<string, string> = {}) => {
    const res = await grant(form, files, headers);
    expect(res.status).toBe(201);
    return (await res.json()) as UploadsGrant;
  };
  const put = (target: UploadsGrant['files'][number], body: Buffer) =>
    fetch(new URL(target.url, app.baseUrl), { method: target.method, headers: target.headers, body });
  const submit = (form: TestForm, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body: new URLSearchParams(fields),
    });
  const stored = (form: TestForm, id: string) =>
    eventually(async () => {
      const got = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
      expect(got.status).toBe(200);
      return got.body as unknown as SubmissionDto;
    });
  const downloaded = async (form: TestForm, id: string, blobKey: string) => {
    const link = await app.api('GET', `/api/v1/forms/${form.id}/submissions/${id}/files/${blobKey}/link`);
    expect(link.status).toBe(200);
    const res = await fetch(`${app.baseUrl}${(link.body as unknown as FileLinkDto).url}`);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('takes a 100 MB file PUT to the endpoint, then the submission that names it', async () => {
    const form = await app.createForm({ name: 'Big files' });
    const big = Buffer.concat([PDF, randomBytes(100 * MiB - PDF.length)]);
    const g = await granted(form, [
      { field: 'scan', filename: 'scan.pdf', contentType: 'application/pdf', size: big.length },
    ]);
    expect(g.files).toEqual([
      {
        field: 'scan',
        method: 'PUT',
        url: expect.stringMatching(/^\/f\/.+\/uploads\//),
        headers: { 'content-type': 'application/pdf' },
      },
    ]);
    expect((await put(g.files[0] as UploadsGrant['files'][number], big)).status).toBe(204);
    const res = await submit(form, { name: 'Ada', _uploads: g.uploads });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const s = await stored(form, id);
    expect(s.fields).toEqual([{ name: 'name', value: 'Ada' }]);
    expect(s.files).toEqual([
      expect.objectContaining({
        field: 'scan',
        filename: 'scan.pdf',
        contentType: 'application/pdf',
        size: big.length,
      }),
    ]);
    expect((await downloaded(form, id, s.files[0]?.blobKey as string)).equals(big)).toBe(true);
    // The same token again is the same submission (its idempotency key is the token's).
    const again = await submit(form, { name: 'Ada', _uploads: g.uploads });
    expect(((await again.json()) as { id: string }).id).toBe(id);
  });

  it('refuses a file that is not of its declared type, one not uploaded, or cut short', async () => {
    const form = await app.createForm({ name: 'Checked' });
    const g = await granted(form, [
      { field: 'photo', filename: 'photo.png', contentType: 'image/png', size: PDF.length },
    ]);
    await put(g.files[0] as UploadsGrant['files'][number], PDF);
    await expectRejected(await submit(form, { _uploads: g.uploads }), 400, 'FILE_TYPE_MISMATCH');

    const missing = await granted(form, [
      { field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 100 },
    ]);
    await expectRejected(await submit(form, { _uploads: missing.uploads }), 400, 'UPLOAD_MISSING');
    // A PUT of fewer bytes than granted is refused and stores nothing.
    const short = await put(missing.files[0] as UploadsGrant['files'][number], PDF.subarray(0, 10));
    expect(short.status).toBe(400);
    await expectRejected(await submit(form, { _uploads: missing.uploads }), 400, 'UPLOAD_MISSING');
    // A forged PUT token stores nothing.
    const forged = (missing.files[0]?.url ?? '').replace(/token=.{8}/, 'token=AAAAAAAA');
    await expectRejected(
      await fetch(new URL(forged, app.baseUrl), { method: 'PUT', headers: { accept: 'application/json' }, body: PDF }),
      400,
      'UPLOADS_INVALID',
    );
    expect((await app.listSubmissions(form.id)).data).toEqual([]);
  });

  it("applies the form's size and type limits when granting, and binds the token to its form and key", async () => {
    const form = await app.createForm({
      name: 'Images only',
      settings: { files: { maxFileMb: 1, allowedTypes: ['image/*'] } },
    });
    await expectRejected(
      await grant(form, [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 10 }]),
      415,
      'FILE_TYPE_NOT_ALLOWED',
    );
    await expectRejected(
      await grant(form, [{ field: 'p', filename: 'p.png', contentType: 'image/png', size: 2 * MiB }]),
      413,
      'FILES_TOO_BIG',
    );
    await expectRejected(
      await grant(
        form,
        Array.from({ length: 11 }, (_, i) => ({
          field: `f${i}`,
          filename: 'a.png',
          contentType: 'image/png',
          size: 1,
        })),
      ),
      413,
      'TOO_MANY_FILES',
    );
    await expectRejected(await grant(form, [{ field: 'p', filename: 'p.png' }]), 400, 'MALFORMED');
    const g = await granted(form, [{ field: 'p', filename: 'p.png', contentType: 'image/png', size: PNG.length }], {
      'idempotency-key': 'key-one',
    });
    await put(g.files[0] as UploadsGrant['files'][number], PNG);
    const other = await app.createForm({ name: 'Other' });
    await expectRejected(await submit(other, { _uploads: g.uploads }), 400, 'UPLOADS_INVALID');
    await expectRejected(
      await submit(form, { _uploads: g.uploads }, { 'idempotency-key': 'key-two' }),
      400,
      'UPLOADS_INVALID',
    );
    const ok = await submit(form, { _uploads: g.uploads }, { 'idempotency-key': 'key-one' });
    expect(ok.status).toBe(200);
    // The multipart path keeps the same rules.
    const body = new FormData();
    body.append('doc', new Blob([PDF], { type: 'application/pdf' }), 'doc.pdf');
    await expectRejected(
      await fetch(`${app.baseUrl}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' }, body }),
      415,
      'FILE_TYPE_NOT_ALLOWED',
    );
    const lying = new FormData();
    lying.append('photo', new Blob([PDF], { type: 'image/png' }), 'photo.png');
    await expectRejected(
      await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: lying,
      }),
      400,
      'FILE_TYPE_MISMATCH',
    );
  });

  it('@formgate/client uploads the files of a FormData directly, then submits the rest', async () => {
    const form = await app.createForm({ name: 'Client' });
    const client = createFormgateClient({ baseUrl: app.baseUrl });
    const data = new FormData();
    data.append('name', 'Grace');
    data.append('tag', 'a');
    data.append('tag', 'b');
    data.append('photo', new File([PNG], 'photo.png', { type: 'image/png' }));
    data.append('cv', new File([PDF], 'cv.pdf', { type: 'application/pdf' }));
    const { id } = await client.submit(form.key, data);
    const s = await stored(form, id);
    expect(s.fields).toEqual([
      { name: 'name', value: 'Grace' },
      { name: 'tag', value: 'a' },
      { name: 'tag', value: 'b' },
    ]);
    expect(s.files.map((f) => [f.field, f.filename, f.contentType, f.size])).toEqual([
      ['photo', 'photo.png', 'image/png', PNG.length],
      ['cv', 'cv.pdf', 'application/pdf', PDF.length],
    ]);
    expect((await downloaded(form, id, s.files[1]?.blobKey as string)).equals(PDF)).toBe(true);
    // A refused file comes back as the client's error, naming the field.
    const lying = new FormData();
    lying.append('photo', new File([PDF], 'photo.png', { type: 'image/png' }));
    const err = await client.submit(form.key, lying).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormgateError);
    expect((err as FormgateError).code).toBe('FILE_TYPE_MISMATCH');
  });
});

/** Formgate in embedded mode with one plan, the default: 1,000 submissions and emails a month, and `limits`. */
async function startOnPlan(limits: Record<string, number>) {
  const plans = join(mkdtempSync(join(tmpdir(), 'fg-plans-')), 'plans.json');
  const plan = { id: 'only', name: 'Only', limits: { submissionsPerMonth: 1000, emailsPerMonth: 1000, ...limits } };
  writeFileSync(plans, JSON.stringify({ defaultPlan: 'only', plans: [plan] }));
  return startTestApp({ PLANS_FILE: plans });
}

describe("embedded mode: the plan's file size limit", () => {
  it('caps every form of the plan, whatever the form asks, in both upload paths', async () => {
    const app = await startOnPlan({ maxFileMb: 1 });
    try {
      const form = await app.createForm({
        name: 'Asks more',
        settings: { files: { maxFileMb: 50, allowedTypes: [] } },
      });
      const res = await fetch(`${app.baseUrl}/f/${form.key}/uploads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          files: [{ field: 'f', filename: 'f.bin', contentType: 'application/octet-stream', size: MiB + 1 }],
        }),
      });
      await expectRejected(res, 413, 'FILES_TOO_BIG');
      const body = new FormData();
      body.append('f', new Blob([Buffer.alloc(MiB + 1)], { type: 'application/octet-stream' }), 'f.bin');
      await expectRejected(
        await fetch(`${app.baseUrl}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' }, body }),
        413,
        'FILES_TOO_BIG',
      );
      const ok = await fetch(`${app.baseUrl}/f/${form.key}/uploads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          files: [{ field: 'f', filename: 'f.bin', contentType: 'application/octet-stream', size: MiB }],
        }),
      });
      expect(ok.status).toBe(201);
    } finally {
      await app.stop();
    }
  });
});

describe("embedded mode: the plan's file storage", () => {
  it('refuses files once the organization fills its storage, takes submissions without, and again once freed', async () => {
    const app = await startOnPlan({ fileStorageMb: 1 });
    try {
      const form = await app.createForm({ name: 'CVs' });
      const withFile = () => {
        const body = new FormData();
        body.append('name', 'Ada');
        body.append('cv', new Blob([PDF, Buffer.alloc(600 * 1024)], { type: 'application/pdf' }), 'cv.pdf');
        return fetch(`${app.baseUrl}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' }, body });
      };
      const grant = () =>
        fetch(`${app.baseUrl}/f/${form.key}/uploads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 9 }],
          }),
        });
      const first = await withFile();
      expect(first.status).toBe(200);
      const { id } = (await first.json()) as { id: string };
      // 0.6 MiB of 1: room left.
      await eventually(async () => {
        const usage = await app.api('GET', '/api/v1/billing/usage');
        expect((usage.body as { storage: { usedMb: number } }).storage.usedMb).toBeGreaterThan(0.5);
      });
      expect((await withFile()).status).toBe(200);
      // 1.2 MiB of 1: full, as soon as billing has measured it.
      // (Probed with grants, which store nothing: a post accepted meanwhile would store another file.)
      await eventually(async () => expectRejected(await grant(), 413, 'FILE_STORAGE_FULL'));
      await expectRejected(await withFile(), 413, 'FILE_STORAGE_FULL');
      const plain = await fetch(`${app.baseUrl}/f/${form.key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ name: 'No file' }),
      });
      expect(plain.status).toBe(200);
      // Deleting a submission frees its file: files go in again.
      expect((await app.api('DELETE', `/api/v1/forms/${form.id}/submissions/${id}`)).status).toBe(204);
      await eventually(async () => expect((await grant()).status).toBe(201));
      expect((await withFile()).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});
