import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createStoreHealth } from '@formgate/kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FileStoreConfig, fileStoreEnv, openFileStore } from '../src/file-store.ts';

/** The settings forms and ingest read (`FILE_STORE=s3`), pointed at the e2e tier's S3 server (`S3_TEST_URL`). */
function s3Settings(bucket: string): FileStoreConfig {
  const u = new URL(process.env.S3_TEST_URL as string);
  return z.object(fileStoreEnv).parse({
    FILE_STORE: 's3',
    S3_ENDPOINT: `${u.protocol}//${u.host}`,
    S3_BUCKET: bucket,
    S3_PREFIX: 'files/',
    S3_ACCESS_KEY_ID: decodeURIComponent(u.username),
    S3_SECRET_ACCESS_KEY: decodeURIComponent(u.password),
  });
}
const noMongo = async () => {
  throw new Error('an S3 file store opens no database');
};
const bucket = `formgate-boot-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const { S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = s3Settings(bucket);
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: S3_ENDPOINT as string,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY_ID as string, secretAccessKey: S3_SECRET_ACCESS_KEY as string },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
});

describe('a distributed service’s file store from its settings', () => {
  it('FILE_STORE=s3 stores in the bucket under the prefix, and /readyz checks the bucket', async () => {
    const storeHealth = createStoreHealth();
    const blobs = await openFileStore(s3Settings(bucket), { mongo: noMongo, storeHealth });
    const key = randomBytes(12).toString('base64url');
    await blobs.put(
      key,
      Readable.from([Buffer.from('%PDF-1.7')]),
      { contentType: 'application/pdf', filename: 'cv.pdf' },
      1e6,
    );
    const got = await blobs.get(key);
    expect((await buffer(got?.stream as Readable)).toString()).toBe('%PDF-1.7');
    expect(await storeHealth.healthy({ fresh: true })).toBe(true);
  });

  it('stops the boot with the store’s answer for a bucket that is not there, or settings that do not go together', async () => {
    const storeHealth = createStoreHealth();
    await expect(openFileStore(s3Settings(`${bucket}-missing`), { mongo: noMongo, storeHealth })).rejects.toThrow(
      `S3 bucket ${bucket}-missing is not reachable`,
    );
    await expect(
      openFileStore({ ...s3Settings(bucket), S3_BUCKET: undefined }, { mongo: noMongo, storeHealth }),
    ).rejects.toThrow('FILE_STORE=s3 needs S3_BUCKET');
    await expect(
      openFileStore({ ...s3Settings(bucket), S3_SECRET_ACCESS_KEY: undefined }, { mongo: noMongo, storeHealth }),
    ).rejects.toThrow('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  });
});
