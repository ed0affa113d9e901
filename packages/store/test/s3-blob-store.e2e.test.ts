import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobTooLargeError } from '../src/blob-store.ts';
import { createS3BlobStore, type S3BlobStoreOptions } from '../src/s3-blob-store.ts';
import { runBlobStoreContract } from './blob-store.contract.ts';

/** The e2e tier's S3-compatible server (`S3_TEST_URL`, SeaweedFS by default: `tests/harness/global-setup.ts`). */
function s3Options(bucket: string): S3BlobStoreOptions {
  const url = process.env.S3_TEST_URL;
  if (!url) throw new Error('S3_TEST_URL is not set: the e2e global setup provides it');
  const u = new URL(url);
  return {
    endpoint: `${u.protocol}//${u.host}`,
    region: 'us-east-1',
    bucket,
    credentials: { accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password) },
    forcePathStyle: true,
  };
}

const bucket = `formgate-test-${randomBytes(4).toString('hex')}`;
const stores: ReturnType<typeof createS3BlobStore>[] = [];
const open = (extra: Partial<S3BlobStoreOptions> = {}) => {
  const store = createS3BlobStore({ ...s3Options(bucket), ...extra });
  stores.push(store);
  return store;
};
const MiB = 1024 * 1024;
const key = () => randomBytes(12).toString('base64url');

beforeAll(async () => {
  await open().client.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(() => {
  for (const s of stores) s.close();
});

runBlobStoreContract({
  name: 's3 (SeaweedFS)',
  create: async () => open({ prefix: `${randomBytes(3).toString('hex')}/` }),
});

describe('s3 BlobStore', () => {
  it('writes private objects with server-side encryption, the file name kept in any script', async () => {
    const store = open();
    const k = key();
    await store.put(
      k,
      Readable.from([Buffer.from('hello')]),
      { contentType: 'text/plain', filename: 'Résumé 履歴.txt' },
      100,
    );
    const head = await store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: k }));
    expect(head.ServerSideEncryption).toBe('AES256');
    expect((await store.get(k))?.info).toEqual({ contentType: 'text/plain', filename: 'Résumé 履歴.txt' });
    // Without a signature the server refuses to serve it.
    const { endpoint } = s3Options(bucket);
    expect((await fetch(`${endpoint}/${bucket}/${k}`)).status).toBe(403);
  });

  it('streams a file larger than a part in parts, and drops every part of one that passes the limit', async () => {
    const store = open();
    const big = key();
    const chunks = Array.from({ length: 12 }, () => randomBytes(MiB));
    const { size } = await store.put(
      big,
      Readable.from(chunks),
      { contentType: 'video/mp4', filename: 'v.mp4' },
      20 * MiB,
    );
    expect(size).toBe(12 * MiB);
    expect((await store.get(big))?.size).toBe(12 * MiB);

    const over = key();
    await expect(
      store.put(over, Readable.from(chunks), { contentType: 'video/mp4', filename: 'v.mp4' }, 11 * MiB),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.get(over)).toBeNull();
    const pending = await store.client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: over }));
    expect(pending.Uploads ?? []).toEqual([]);
  });

  it('leaves nothing when the source fails after several parts', async () => {
    const store = open();
    const k = key();
    async function* failing() {
      for (let i = 0; i < 7; i++) yield randomBytes(MiB);
      throw new Error('client went away');
    }
    await expect(
      store.put(k, Readable.from(failing()), { contentType: 'application/pdf', filename: 'cv.pdf' }, 100 * MiB),
    ).rejects.toThrow('client went away');
    expect(await store.get(k)).toBeNull();
    const listed = await store.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: k }));
    expect(listed.KeyCount ?? 0).toBe(0);
    const pending = await store.client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: k }));
    expect(pending.Uploads ?? []).toEqual([]);
  });
});
