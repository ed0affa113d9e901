import { connect } from 'node:net';
import { join } from 'node:path';
import { openSqlite } from '@formgate/store/sqlite';
import { expect } from 'vitest';
import { eventually, type TestApp, type TestForm } from '../../harness/embedded-app.ts';

export const JSON_CLIENT = { accept: 'application/json' } as const;
export const URLENCODED = { 'content-type': 'application/x-www-form-urlencoded' } as const;
export const JSON_BODY = { 'content-type': 'application/json' } as const;
export const BOUNDARY = 'fgBoundary7MA4YWxkTrZu0gW';
export const MULTIPART = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } as const;

export interface StoredSubmission {
  id: string;
  fields: { name: string; value: string }[];
  files: { field: string; blobKey: string; filename: string; contentType: string; size: number }[];
}

/** Asserts a rejection in Formspree's wire format, with the CORS headers every ingest answer carries. */
export async function expectRejected(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  expect(await res.json()).toEqual({
    error: expect.any(String),
    errors: [expect.objectContaining({ code, message: expect.any(String) })],
  });
}

export const CLOSING = `--${BOUNDARY}--\r\n`;

export function field(name: string, value: string): Buffer {
  return Buffer.from(`Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`);
}

export function file(name: string, filename: string, data: Buffer, type = 'text/plain'): Buffer {
  const head = `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), data]);
}

/** A multipart body of `parts`, ended by the closing boundary (`CLOSING`, so a test can cut it off). */
export function multipart(parts: Buffer[]): Buffer {
  const chunks = parts.flatMap((p) => [Buffer.from(`--${BOUNDARY}\r\n`), p, Buffer.from('\r\n')]);
  return Buffer.concat([...chunks, Buffer.from(CLOSING)]);
}
/** HTTP helpers for the public endpoint of a running test app. */
export function ingestClient(app: TestApp) {
  const post = (key: string, body: string | Buffer | undefined, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}/f/${key}`, { method: 'POST', redirect: 'manual', headers, body });

  const listed = async (form: TestForm, ids: string[]) =>
    eventually(async () => {
      const list = await app.listSubmissions(form.id, '?limit=100');
      expect(list.data.map((s) => s.id)).toEqual(ids);
      return list.data as unknown as StoredSubmission[];
    });

  const client = {
    post,
    postForm: (key: string, body: string | Buffer, headers: Record<string, string> = {}) =>
      post(key, body, { ...URLENCODED, ...JSON_CLIENT, ...headers }),
    postJson: (key: string, body: string | Buffer, headers: Record<string, string> = {}) =>
      post(key, body, { ...JSON_BODY, ...JSON_CLIENT, ...headers }),
    postMultipart: (key: string, body: Buffer, headers: Record<string, string> = {}) =>
      post(key, body, { ...MULTIPART, ...JSON_CLIENT, ...headers }),

    /** The id of an accepted JSON-client submission. */
    async acceptedId(res: Response): Promise<string> {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { ok: boolean; id: string };
      expect(body.ok).toBe(true);
      return body.id;
    },

    /** Waits until the form lists exactly the submission `id`, and returns it as stored. */
    async storedOnly(form: TestForm, id: string): Promise<StoredSubmission> {
      const [only] = await listed(form, [id]);
      return only as StoredSubmission;
    },

    /**
     * Nothing earlier was stored: a sentinel posted now is, once listed, the only submission. The log is ordered
     * per form, so anything published before the sentinel would be visible by then.
     */
    async expectNothingStored(form: TestForm) {
      const id = await client.acceptedId(await client.postForm(form.key, 'sentinel=1'));
      await listed(form, [id]);
    },

    /** A normal submission still gets its 303 quickly. */
    async expectResponsive(form: TestForm) {
      const started = performance.now();
      const res = await post(form.key, 'still=alive', URLENCODED);
      expect(res.status).toBe(303);
      expect(performance.now() - started).toBeLessThan(1_000);
    },
  };
  return client;
}

/** Every key with anything in the embedded blob store: complete blobs and the chunks of partial uploads. */
export function blobKeys(app: TestApp): string[] {
  const db = openSqlite(join(app.dataDir, 'blobs.db'));
  try {
    const rows = db.prepare('SELECT key FROM blobs UNION SELECT key FROM blob_chunks ORDER BY key').all();
    return (rows as { key: string }[]).map((r) => r.key);
  } finally {
    db.close();
  }
}

/**
 * Sends raw bytes on a fresh connection and resolves with everything the server answered before closing. Write
 * errors are expected (the server may answer and close before the whole body is sent).
 */
export function rawExchange(app: TestApp, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(head);
    socket.end(body);
  });
}
