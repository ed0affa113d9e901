import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { mongo } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { BlobTooLargeError } from '../src/blob-store.ts';
import { createGridFsBlobStore } from '../src/gridfs-blob-store.ts';
import { useTestMongo } from '../src/testing.ts';
import { runBlobStoreContract } from './blob-store.contract.ts';

const testDb = useTestMongo();

runBlobStoreContract({ name: 'gridfs', create: async () => createGridFsBlobStore(testDb()) });

describe('gridfs BlobStore: partial uploads', () => {
  it('deletes the chunks already written when the limit is passed after several chunks', async () => {
    const bucketName = `limit_${randomBytes(4).toString('hex')}`;
    const store = createGridFsBlobStore(testDb(), bucketName);
    const key = randomBytes(12).toString('base64url');
    const chunks = Array.from({ length: 4 }, () => randomBytes(300_000));
    await expect(
      store.put(key, Readable.from(chunks), { contentType: 'video/mp4', filename: 'v.mp4' }, 1_000_000),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    const db = testDb().db as mongo.Db;
    expect(await db.collection(`${bucketName}.chunks`).countDocuments({})).toBe(0);
    expect(await db.collection(`${bucketName}.files`).countDocuments({})).toBe(0);
  });

  it('deletes the chunks already written when the source stream fails', async () => {
    const bucketName = `fail_${randomBytes(4).toString('hex')}`;
    const store = createGridFsBlobStore(testDb(), bucketName);
    async function* failing() {
      yield randomBytes(600_000);
      throw new Error('client went away');
    }
    await expect(
      store.put('k'.repeat(12), Readable.from(failing()), { contentType: 'text/plain', filename: 'x' }, 10_000_000),
    ).rejects.toThrow('client went away');
    const db = testDb().db as mongo.Db;
    expect(await db.collection(`${bucketName}.chunks`).countDocuments({})).toBe(0);
    expect(await store.get('k'.repeat(12))).toBeNull();
  });
});
