import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFormgateClient } from '../src/client.ts';
import { FormgateError } from '../src/errors.ts';

/**
 * Direct uploads against a local server that speaks the gateway's contract: `POST /f/{key}/uploads` answers 201 with
 * root-relative `PUT` URLs on itself (or, when asked, absolute ones on a second server standing for S3), the `PUT`
 * handler keeps the bytes, `POST /f/{key}` records what it got.
 */

interface Seen {
  server: 'gateway' | 'storage';
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface PresignFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
}

let seen: Seen[] = [];
let stored = new Map<string, Buffer>();
/** What the next presign answers instead of 201 (status, headers, body), one per call. */
let presignFailures: { status: number; headers?: Record<string, string>; body: string }[] = [];
/** Statuses the next PUTs answer before one succeeds, in order (with `Retry-After: 0`). */
let putFailures: number[] = [];
/** Upload indexes whose URL points at the storage server (absolute). */
let onStorage = new Set<number>();
/** What the storage server answers a PUT instead of 200. */
let storageFailure: { status: number; body: string } | null = null;
/** Leave `content-type` out of the returned headers. */
let withoutContentType = false;
/** PUTs that never answer (for abort). */
let hangPuts = false;

const readBody = (req: NodeJS.ReadableStream) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

let gateway: Server;
let storage: Server;
let baseUrl = '';
let storageUrl = '';

beforeAll(async () => {
  gateway = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = req.url ?? '';
    seen.push({ server: 'gateway', method: req.method ?? '', url, headers: req.headers, body });
    const presign = /^\/f\/([^/]+)\/uploads$/.exec(url);
    if (req.method === 'POST' && presign) {
      const failure = presignFailures.shift();
      if (failure) {
        res.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
        return res.end(failure.body);
      }
      const { files } = JSON.parse(body.toString()) as { files: PresignFile[] };
      const token = `tok-${seen.length}`;
      return json(res, 201, {
        uploads: token,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        files: files.map((f, i) => ({
          field: f.field,
          url: onStorage.has(i) ? `${storageUrl}/bucket/${token}-${i}?X-Amz-Signature=abc%2Fdef` : `/u/${token}/${i}`,
          method: 'PUT',
          headers: { ...(withoutContentType ? {} : { 'content-type': f.contentType }), 'x-upload-check': `c${i}` },
        })),
      });
    }
    if (req.method === 'PUT' && url.startsWith('/u/')) {
      if (hangPuts) return;
      const status = putFailures.shift();
      if (status) {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
        return res.end(JSON.stringify({ error: 'Unavailable', errors: [{ code: 'UNAVAILABLE', message: 'later' }] }));
      }
      stored.set(url, body);
      res.writeHead(204);
      return res.end();
    }
    if (req.method === 'POST' && /^\/f\/[^/]+$/.test(url)) return json(res, 200, { id: 'sub-1', next: '/thanks' });
    json(res, 404, { error: 'Not found', errors: [{ code: 'NOT_FOUND', message: 'Not found' }] });
  });
  storage = createServer(async (req, res) => {
    const body = await readBody(req);
    seen.push({ server: 'storage', method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (storageFailure) {
      res.writeHead(storageFailure.status, { 'content-type': 'application/xml' });
      return res.end(storageFailure.body);
    }
    stored.set(`storage:${req.url}`, body);
    res.writeHead(200, { etag: '"x"' });
    res.end();
  });
  const listen = (s: Server) =>
    new Promise<string>((resolve) =>
      s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
    );
  baseUrl = await listen(gateway);
  storageUrl = await listen(storage);
});

afterAll(async () => {
  gateway.closeAllConnections();
  storage.closeAllConnections();
  await Promise.all([gateway, storage].map((s) => new Promise((resolve) => s.close(resolve))));
});

beforeEach(() => {
  seen = [];
  stored = new Map();
  presignFailures = [];
  putFailures = [];
  onStorage = new Set();
  storageFailure = null;
  withoutContentType = false;
  hangPuts = false;
});

const MARKER = 'FILE-BYTES-MARKER';
const bytes = (n: number) => Buffer.concat([Buffer.from(MARKER), randomBytes(n)]);

const fg = () => createFormgateClient({ baseUrl });
const presigns = () => seen.filter((s) => s.method === 'POST' && s.url.endsWith('/uploads'));
const puts = () => seen.filter((s) => s.method === 'PUT');
const submissions = () => seen.filter((s) => s.method === 'POST' && /^\/f\/[^/]+$/.test(s.url));

/** Headers fetch (undici) adds to every request of its own accord; anything else came from the client. */
const FETCH_DEFAULTS = new Set([
  'host',
  'connection',
  'content-length',
  'accept',
  'accept-language',
  'accept-encoding',
  'user-agent',
  'sec-fetch-mode',
]);

describe('submit: direct uploads', () => {
  it('uploads each file by PUT with exactly the returned headers, then posts the other fields with _uploads', async () => {
    const cv = bytes(300_000);
    const photo = bytes(1_000);
    const data = new FormData();
    data.append('name', 'Ada');
    data.append('cv', new File([cv], 'cv.pdf', { type: 'application/pdf' }));
    data.append('tag', 'a');
    data.append('photo', new Blob([photo], { type: 'image/png' }));
    data.append('tag', 'b');
    data.append('empty', new File([], '', { type: 'application/octet-stream' })); // an untouched file input

    const result = await fg().submit('fk', data, { idempotencyKey: 'order-7' });
    expect(result).toEqual({ id: 'sub-1', next: '/thanks' });

    const [presign, ...more] = presigns();
    expect(more).toEqual([]);
    expect(presign?.url).toBe('/f/fk/uploads');
    expect(presign?.headers['content-type']).toBe('application/json');
    expect(presign?.headers.accept).toBe('application/json');
    expect(presign?.headers['idempotency-key']).toBe('order-7');
    expect(JSON.parse(presign?.body.toString() ?? '')).toEqual({
      files: [
        { field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: cv.length },
        { field: 'photo', filename: 'blob', contentType: 'image/png', size: photo.length },
      ],
    });

    const token = `tok-${seen.indexOf(presign as Seen) + 1}`;
    expect(puts().map((p) => p.url)).toEqual(expect.arrayContaining([`/u/${token}/0`, `/u/${token}/1`]));
    expect(puts()).toHaveLength(2);
    for (const put of puts()) {
      const i = Number(put.url.slice(-1));
      expect(put.headers['content-type']).toBe(i === 0 ? 'application/pdf' : 'image/png');
      expect(put.headers['x-upload-check']).toBe(`c${i}`);
      expect(put.headers['idempotency-key']).toBeUndefined();
      expect(put.headers.accept).not.toBe('application/json');
      const extra = Object.keys(put.headers).filter(
        (h) => !FETCH_DEFAULTS.has(h) && h !== 'content-type' && h !== 'x-upload-check',
      );
      expect(extra).toEqual([]);
    }
    expect(stored.get(`/u/${token}/0`)?.equals(cv)).toBe(true);
    expect(stored.get(`/u/${token}/1`)?.equals(photo)).toBe(true);

    const [post, ...again] = submissions();
    expect(again).toEqual([]);
    expect(seen.indexOf(post as Seen)).toBeGreaterThan(Math.max(...puts().map((p) => seen.indexOf(p))));
    expect(post?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(post?.headers['idempotency-key']).toBe('order-7');
    expect(post?.headers.accept).toBe('application/json');
    expect(post?.body.includes(MARKER)).toBe(false);
    expect([...new URLSearchParams(post?.body.toString()).entries()]).toEqual([
      ['name', 'Ada'],
      ['tag', 'a'],
      ['tag', 'b'],
      ['_uploads', token],
    ]);
  });

  it('one idempotency key for the whole flow when none is given', async () => {
    const data = new FormData();
    data.append('f', new File([bytes(10)], 'a.txt', { type: 'text/plain' }));
    await fg().submit('fk', data);
    const key = presigns()[0]?.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(submissions()[0]?.headers['idempotency-key']).toBe(key);
  });

  it('a FormData without files (or with only an empty file input) is still one request', async () => {
    const data = new FormData();
    data.append('a', '1');
    data.append('a', '2');
    await fg().submit('fk', data);
    const withEmptyInput = new FormData();
    withEmptyInput.append('a', '1');
    withEmptyInput.append('file', new File([], ''));
    await fg().submit('fk', withEmptyInput);
    await fg().submit('fk', { a: 1 });
    expect(presigns()).toEqual([]);
    expect(puts()).toEqual([]);
    expect(submissions().map((s) => s.headers['content-type']?.split(';')[0])).toEqual([
      'multipart/form-data',
      'multipart/form-data',
      'application/json',
    ]);
  });

  it("uploads: 'multipart' sends one multipart request, the file's bytes in it", async () => {
    const data = new FormData();
    data.append('name', 'Ada');
    data.append('cv', new File([bytes(5_000)], 'cv.pdf', { type: 'application/pdf' }));
    await fg().submit('fk', data, { uploads: 'multipart' });
    expect(presigns()).toEqual([]);
    expect(puts()).toEqual([]);
    expect(submissions()).toHaveLength(1);
    expect(submissions()[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(submissions()[0]?.body.includes(MARKER)).toBe(true);
  });

  it("uploads: 'direct' uploads a named empty file too; 'auto' does not for that alone", async () => {
    const data = () => {
      const d = new FormData();
      d.append('empty', new File([], 'empty.txt', { type: 'text/plain' }));
      return d;
    };
    await fg().submit('fk', data());
    expect(presigns()).toEqual([]);
    await fg().submit('fk', data(), { uploads: 'direct' });
    expect(JSON.parse(presigns()[0]?.body.toString() ?? '').files).toEqual([
      { field: 'empty', filename: 'empty.txt', contentType: 'text/plain', size: 0 },
    ]);
    expect(puts()).toHaveLength(1);
  });

  it('a 503 on a PUT is retried, then succeeds', async () => {
    putFailures = [503, 503];
    const file = bytes(20_000);
    const data = new FormData();
    data.append('cv', new File([file], 'cv.pdf', { type: 'application/pdf' }));
    await expect(fg().submit('fk', data)).resolves.toEqual({ id: 'sub-1', next: '/thanks' });
    expect(puts()).toHaveLength(3);
    expect(puts().every((p) => p.body.equals(file))).toBe(true);
    expect(submissions()).toHaveLength(1);
  });

  it('a PUT failing beyond the retries throws, and nothing is submitted', async () => {
    putFailures = [503, 503];
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf'));
    const err = await fg()
      .submit('fk', data, { retries: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormgateError);
    expect([(err as FormgateError).status, (err as FormgateError).code]).toEqual([503, 'UNAVAILABLE']);
    expect(submissions()).toEqual([]);
  });

  it('the presign call is retried like the submission (503 with Retry-After)', async () => {
    presignFailures = [
      {
        status: 503,
        headers: { 'retry-after': '0' },
        body: JSON.stringify({ error: 'x', errors: [{ code: 'UNAVAILABLE', message: 'x' }] }),
      },
    ];
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf'));
    await fg().submit('fk', data, { idempotencyKey: 'k-1' });
    expect(presigns().map((p) => p.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
    expect(submissions()).toHaveLength(1);
  });

  it('a 413 on presign throws FILES_TOO_BIG and uploads nothing', async () => {
    presignFailures = [
      {
        status: 413,
        body: JSON.stringify({
          error: 'A file is too big',
          errors: [{ code: 'FILES_TOO_BIG', message: 'A file is too big', field: 'cv' }],
        }),
      },
    ];
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf'));
    const err = await fg()
      .submit('fk', data)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormgateError);
    expect([(err as FormgateError).status, (err as FormgateError).code]).toEqual([413, 'FILES_TOO_BIG']);
    expect((err as FormgateError).fieldErrors.cv?.[0]?.code).toBe('FILES_TOO_BIG');
    expect(presigns()).toHaveLength(1);
    expect(puts()).toEqual([]);
    expect(submissions()).toEqual([]);
  });

  it('an absolute URL (a presigned one on another host) is used as is', async () => {
    onStorage = new Set([1]);
    const a = bytes(100);
    const b = bytes(70_000);
    const data = new FormData();
    data.append('a', new File([a], 'a.bin'));
    data.append('b', new File([b], 'b.bin', { type: 'application/zip' }));
    await fg().submit('fk', data);
    const onS3 = puts().filter((p) => p.server === 'storage');
    expect(onS3).toHaveLength(1);
    expect(onS3[0]?.url).toMatch(/^\/bucket\/tok-\d+-1\?X-Amz-Signature=abc%2Fdef$/);
    expect(onS3[0]?.headers['content-type']).toBe('application/zip');
    expect(onS3[0]?.headers['x-upload-check']).toBe('c1');
    expect(stored.get(`storage:${onS3[0]?.url}`)?.equals(b)).toBe(true);
    const onGateway = puts().filter((p) => p.server === 'gateway');
    expect(onGateway.map((p) => p.headers['content-type'])).toEqual(['application/octet-stream']);
    expect(onGateway[0]?.body.equals(a)).toBe(true);
  });

  it("storage's XML refusal is an UPLOAD_FAILED with its status, not retried", async () => {
    onStorage = new Set([0]);
    storageFailure = {
      status: 403,
      body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message><RequestId>R1</RequestId></Error>',
    };
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf'));
    const err = (await fg()
      .submit('fk', data)
      .catch((e: unknown) => e)) as FormgateError;
    expect(err).toBeInstanceOf(FormgateError);
    expect([err.status, err.code]).toEqual([403, 'UPLOAD_FAILED']);
    expect(err.message).toContain('AccessDenied');
    expect(err.details).toEqual({
      field: 'cv',
      filename: 'cv.pdf',
      storageCode: 'AccessDenied',
      storageMessage: 'Request has expired',
      storageRequestId: 'R1',
    });
    expect(puts()).toHaveLength(1);
    expect(submissions()).toEqual([]);
  });

  it('sends exactly the returned headers: no Content-Type of its own when none was returned', async () => {
    withoutContentType = true;
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf', { type: 'application/pdf' }));
    await fg().submit('fk', data);
    expect(puts()[0]?.headers['content-type']).toBeUndefined();
    expect(puts()[0]?.headers['x-upload-check']).toBe('c0');
  });

  it('the signal aborts an upload in flight', async () => {
    hangPuts = true;
    const data = new FormData();
    data.append('cv', new File([bytes(10)], 'cv.pdf'));
    const controller = new AbortController();
    const pending = fg().submit('fk', data, { signal: controller.signal });
    while (puts().length === 0) await new Promise((r) => setTimeout(r, 5));
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(submissions()).toEqual([]);
  });
});
