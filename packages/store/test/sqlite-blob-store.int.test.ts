import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { OverloadedError, openSqlite, type SqliteDb } from '../src/sqlite.ts';
import { createSqliteBlobStore } from '../src/sqlite-blob-store.ts';
import { runBlobStoreContract } from './blob-store.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'fg-sqlite-blobs-'));
const opened: SqliteDb[] = [];
const open = (name = `${randomBytes(6).toString('hex')}.db`) => {
  const db = openSqlite(join(dir, name));
  opened.push(db);
  return db;
};
afterAll(() => {
  for (const db of opened) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const key = () => randomBytes(12).toString('base64url');
const info = { contentType: 'application/octet-stream', filename: 'f.bin' };
const rowCount = (db: SqliteDb, sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;

runBlobStoreContract({ name: 'sqlite', create: async () => createSqliteBlobStore(open()) });

describe('sqlite BlobStore: chunks', () => {
  it('round-trips a file of several chunks byte for byte, from uneven pieces', async () => {
    const db = open();
    const store = createSqliteBlobStore(db, { chunkBytes: 1_000 });
    const k = key();
    const bytes = randomBytes(4_321);
    const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 2_500), bytes.subarray(2_500)];
    expect(await store.put(k, Readable.from(pieces), info, 10_000)).toEqual({ size: bytes.length });
    expect(rowCount(db, 'SELECT count(*) AS n FROM blob_chunks WHERE key = ?', k)).toBe(5);
    const got = await store.get(k);
    expect(got?.size).toBe(bytes.length);
    expect((await buffer(got?.stream as Readable)).equals(bytes)).toBe(true);
  });

  it('deletes the chunks already committed when a later part of the stream fails', async () => {
    const db = open();
    const store = createSqliteBlobStore(db, { chunkBytes: 1_000 });
    const k = key();
    async function* failing() {
      yield randomBytes(2_500);
      throw new Error('client went away');
    }
    await expect(store.put(k, Readable.from(failing()), info, 10_000)).rejects.toThrow('client went away');
    expect(await store.get(k)).toBeNull();
    expect(rowCount(db, 'SELECT count(*) AS n FROM blob_chunks')).toBe(0);
  });

  it('rejects with OverloadedError when more chunk bytes wait for a commit than allowed', async () => {
    const store = createSqliteBlobStore(open(), { maxQueuedBytes: 1_500 });
    const puts = [key(), key()].map((k) => store.put(k, Readable.from([randomBytes(1_000)]), info, 10_000));
    const [first, second] = await Promise.allSettled(puts);
    expect(first).toEqual({ status: 'fulfilled', value: { size: 1_000 } });
    expect(second).toEqual({ status: 'rejected', reason: expect.any(OverloadedError) });
  });

  it('refuses keys that are not Formgate blob keys', async () => {
    const store = createSqliteBlobStore(open());
    await expect(store.put('../../etc', Readable.from([]), info, 10)).rejects.toThrow('invalid blob key');
    await expect(store.get("x' OR 1=1 --")).rejects.toThrow('invalid blob key');
  });
});

describe('sqlite BlobStore: crash leftovers', () => {
  it('deletes chunks without a metadata row when opened, keeping complete blobs', async () => {
    const name = 'crash.db';
    const db = open(name);
    const store = createSqliteBlobStore(db, { chunkBytes: 100 });
    const kept = key();
    const bytes = randomBytes(250);
    await store.put(kept, Readable.from([bytes]), info, 1_000);
    // What a crash in the middle of an upload leaves: committed chunks, no metadata row yet.
    const cut = key();
    const insert = db.prepare('INSERT INTO blob_chunks (key, seq, data) VALUES (?, ?, ?)');
    for (const seq of [0, 1]) insert.run(cut, seq, randomBytes(100));
    db.close();

    const reopened = open(name);
    const again = createSqliteBlobStore(reopened, { chunkBytes: 100 });
    expect(rowCount(reopened, 'SELECT count(*) AS n FROM blob_chunks WHERE key = ?', cut)).toBe(0);
    expect(rowCount(reopened, 'SELECT count(*) AS n FROM blob_chunks WHERE key = ?', kept)).toBe(3);
    expect((await buffer((await again.get(kept))?.stream as Readable)).equals(bytes)).toBe(true);
  });
});
