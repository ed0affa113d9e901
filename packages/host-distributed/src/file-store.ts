import { HeadBucketCommand } from '@aws-sdk/client-s3';
import type { StoreHealth } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { MongoConnection } from '@formgate/store/mongo';
import { createGridFsBlobStore } from '@formgate/store/mongo';
import { createS3BlobStore } from '@formgate/store/s3';

type S3FileStore = ReturnType<typeof createS3BlobStore>;

import { z } from 'zod';

/** An optional setting where an empty value (`FOO=` in a compose file) means unset. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/**
 * Where the distributed services keep uploaded files (forms and ingest read the same settings): GridFS in the
 * `files` database (default), or an S3-compatible object store (issue 33).
 */
export const fileStoreEnv = {
  FILE_STORE: z.enum(['gridfs', 's3']).default('gridfs'),
  /** An S3-compatible endpoint (MinIO, SeaweedFS, R2, GCS' XML API…); unset: AWS S3 of `S3_REGION`. */
  S3_ENDPOINT: unsetWhenEmpty(z.url()),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** The bucket, private (never public-read): every file is served through Formgate's signed links. */
  S3_BUCKET: unsetWhenEmpty(z.string().min(3).max(63)),
  /** Object names are `<S3_PREFIX><key>`, so that deployments can share a bucket. */
  S3_PREFIX: z.string().max(200).default(''),
  /** Static credentials; unset: the AWS SDK's default chain (environment, web identity, instance role). */
  S3_ACCESS_KEY_ID: unsetWhenEmpty(z.string().min(1)),
  S3_SECRET_ACCESS_KEY: unsetWhenEmpty(z.string().min(1)),
  /** `<endpoint>/<bucket>/<key>` URLs; default: on with `S3_ENDPOINT` (most self-hosted servers need them). */
  S3_FORCE_PATH_STYLE: unsetWhenEmpty(z.enum(['true', 'false']).transform((v) => v === 'true')),
  /** Server-side encryption asked of every write: `AES256` (SSE-S3, default), `aws:kms`, or `none` for a server without it. */
  S3_SSE: z.enum(['AES256', 'aws:kms', 'none']).default('AES256'),
};

export type FileStoreConfig = z.infer<z.ZodObject<typeof fileStoreEnv>>;

/**
 * The service's file store from its settings. With S3, the bucket is checked once here (a wrong name or credentials
 * stop the boot with the store's answer) and then by `/readyz` (`s3:<bucket>`, a HeadBucket).
 */
export async function openFileStore(
  config: FileStoreConfig,
  deps: { mongo: (db: string) => Promise<MongoConnection>; storeHealth: StoreHealth },
): Promise<BlobStore & { presignPut?: S3FileStore['presignPut'] }> {
  if (config.FILE_STORE === 'gridfs') return createGridFsBlobStore(await deps.mongo('files'));
  if (!config.S3_BUCKET) throw new Error('FILE_STORE=s3 needs S3_BUCKET');
  if (Boolean(config.S3_ACCESS_KEY_ID) !== Boolean(config.S3_SECRET_ACCESS_KEY))
    throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  const store = createS3BlobStore({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    prefix: config.S3_PREFIX,
    credentials:
      config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE ?? Boolean(config.S3_ENDPOINT),
    serverSideEncryption: config.S3_SSE,
  });
  const probe = async () => void (await store.client.send(new HeadBucketCommand({ Bucket: config.S3_BUCKET })));
  try {
    await probe();
  } catch (err) {
    throw new Error(
      `S3 bucket ${config.S3_BUCKET} is not reachable: ${(err as Error).name} ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  deps.storeHealth.register(`s3:${config.S3_BUCKET}`, probe);
  return store;
}
