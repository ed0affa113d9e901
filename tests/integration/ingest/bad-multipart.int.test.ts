import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import {
  BOUNDARY,
  blobKeys,
  CLOSING,
  expectRejected,
  field,
  file,
  ingestClient,
  JSON_CLIENT,
  multipart,
} from './ingest-client.ts';

const MiB = 1024 * 1024;

describe('ingest: C7 multipart bombs store nothing and leave no blob behind', () => {
  let app: TestApp;
  let client: ReturnType<typeof ingestClient>;
  let form: TestForm;
  beforeAll(async () => {
    app = await startTestApp();
    client = ingestClient(app);
  });
  afterAll(async () => {
    await app.stop();
  });

  /** Sends a rejected multipart body and checks the answer, that nothing was stored and that no blob is left. */
  async function expectMultipartRejected(body: Buffer, status: number, code: string) {
    // Files of at most 10 MiB (issue 33's per-form limit; the deployment's is 100 MiB).
    form = await app.createForm({ name: 'Multipart', settings: { files: { maxFileMb: 10, allowedTypes: [] } } });
    const before = blobKeys(app);
    await expectRejected(await client.postMultipart(form.key, body), status, code);
    expect(blobKeys(app)).toEqual(before);
    await client.expectNothingStored(form);
    expect(blobKeys(app)).toEqual(before);
  }

  it('rejects 1,000 files with 413 TOO_MANY_FILES', async () => {
    const files = Array.from({ length: 1_000 }, (_, i) => file(`f${i}`, `f${i}.txt`, Buffer.alloc(2_048, 'x')));
    await expectMultipartRejected(multipart([field('name', 'Ann'), ...files]), 413, 'TOO_MANY_FILES');
  });

  it('rejects a file over the form’s 10 MiB with 413 FILES_TOO_BIG', async () => {
    const big = file('upload', 'big.bin', Buffer.alloc(10 * MiB + 1, 1), 'application/octet-stream');
    await expectMultipartRejected(multipart([field('name', 'Ann'), big]), 413, 'FILES_TOO_BIG');
  });

  it('rejects a later file over the form’s 10 MiB after a small one was written, removing both', async () => {
    const small = file('first', 'small.txt', Buffer.from('hello'));
    const big = file('second', 'big.bin', Buffer.alloc(11 * MiB, 1), 'application/octet-stream');
    await expectMultipartRejected(multipart([small, big]), 413, 'FILES_TOO_BIG');
  });

  it('rejects an unterminated final boundary with 400 MALFORMED', async () => {
    const body = multipart([field('name', 'Ann'), file('doc', 'doc.txt', Buffer.alloc(64 * 1024, 'd'))]);
    await expectMultipartRejected(body.subarray(0, body.length - CLOSING.length), 400, 'MALFORMED');
  });

  it('rejects a body cut off inside a file with 400 MALFORMED', async () => {
    const body = multipart([file('doc', 'doc.txt', Buffer.alloc(256 * 1024, 'd'))]);
    await expectMultipartRejected(body.subarray(0, 100 * 1024), 400, 'MALFORMED');
  });

  it('rejects 10,000 fields with 413 TOO_MANY_FIELDS, keeping the event loop responsive', async () => {
    const fields = Array.from({ length: 10_000 }, (_, i) => field(`f${i}`, String(i)));
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    await expectMultipartRejected(multipart(fields), 413, 'TOO_MANY_FIELDS');
    lag.disable();
    // Generous: the integration tier runs three files at a time on two cores, so a scheduler pause of tens of ms is
    // normal; parsing every field before counting them (or anything quadratic in them) stalls for far longer.
    expect(lag.max / 1e6).toBeLessThan(500);
  });

  it('rejects a part with 5,000 header pairs with 400 MALFORMED', async () => {
    const headers = Array.from({ length: 5_000 }, (_, i) => `X-H${i}: v`).join('\r\n');
    const part = Buffer.from(`Content-Disposition: form-data; name="a"\r\n${headers}\r\n\r\nvalue`);
    await expectMultipartRejected(multipart([part]), 400, 'MALFORMED');
  });

  it('rejects a multipart body without a boundary with 400 MALFORMED', async () => {
    form = await app.createForm({ name: 'No boundary' });
    const res = await client.post(form.key, multipart([field('a', '1')]), {
      'content-type': 'multipart/form-data',
      ...JSON_CLIENT,
    });
    await expectRejected(res, 400, 'MALFORMED');
    await client.expectNothingStored(form);
  });

  it('rejects a body declaring more than the multipart limit at once', async () => {
    form = await app.createForm({ name: 'Declared' });
    const res = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        ...JSON_CLIENT,
      },
      body: Buffer.alloc(102 * MiB, 'x'),
    });
    await expectRejected(res, 413, 'PAYLOAD_TOO_LARGE');
    await client.expectNothingStored(form);
  });

  it('accepts a 0-byte file', async () => {
    form = await app.createForm({ name: 'Empty file' });
    const res = await client.postMultipart(
      form.key,
      multipart([field('name', 'Ann'), file('doc', 'empty.txt', Buffer.alloc(0))]),
    );
    const stored = await client.storedOnly(form, await client.acceptedId(res));
    expect(stored.fields).toEqual([{ name: 'name', value: 'Ann' }]);
    expect(stored.files).toEqual([expect.objectContaining({ field: 'doc', filename: 'empty.txt', size: 0 })]);
    expect(blobKeys(app)).toContain(stored.files[0]?.blobKey);
  });

  it('accepts a file alone as a submission', async () => {
    form = await app.createForm({ name: 'File only' });
    const res = await client.postMultipart(form.key, multipart([file('doc', 'a.txt', Buffer.from('hello'))]));
    const stored = await client.storedOnly(form, await client.acceptedId(res));
    expect(stored.fields).toEqual([]);
    expect(stored.files).toEqual([expect.objectContaining({ field: 'doc', filename: 'a.txt', size: 5 })]);
  });

  it('keeps a UTF-8 file name as the browser sent it', async () => {
    form = await app.createForm({ name: 'UTF-8 name' });
    const res = await client.postMultipart(
      form.key,
      multipart([file('doc', 'résumé – 履歴書.pdf', Buffer.from('%PDF'), 'application/pdf')]),
    );
    const stored = await client.storedOnly(form, await client.acceptedId(res));
    expect(stored.files).toEqual([expect.objectContaining({ filename: 'résumé – 履歴書.pdf', size: 4 })]);
  });

  it('accepts a 10 KB filename, truncated, under a random blob key', async () => {
    form = await app.createForm({ name: 'Long name' });
    const name = `${'n'.repeat(10 * 1024)}.txt`;
    const res = await client.postMultipart(form.key, multipart([file('doc', name, Buffer.from('hi'))]));
    const stored = await client.storedOnly(form, await client.acceptedId(res));
    expect(stored.files).toEqual([expect.objectContaining({ filename: 'n'.repeat(255), size: 2 })]);
    expect(stored.files[0]?.blobKey).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });

  it('still answers a normal submission quickly after the bombs', async () => {
    await client.expectResponsive(await app.createForm({ name: 'After' }));
  });
});
