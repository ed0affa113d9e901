import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BlobInfo, type BlobStore, byteLimit, checkBlobKey, isBlobKey } from './blob-store.ts';

/** Where and how the S3-compatible store is reached (`S3_*` settings). */
export interface S3BlobStoreOptions {
  /** An S3-compatible endpoint (MinIO, SeaweedFS, R2…); unset: AWS S3 of `region`. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  /** Object names are `<prefix><key>` (a deployment sharing a bucket keeps its own prefix). */
  prefix?: string;
  /** Static credentials; unset: the AWS SDK's default chain (environment, instance role…). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which most self-hosted servers need. */
  forcePathStyle?: boolean;
  /** Server-side encryption asked of every write; default `AES256` (SSE-S3). `none`: not asked (a server without it). */
  serverSideEncryption?: ServerSideEncryption | 'none';
  /** Multipart part size (bytes, ≥ 5 MiB): a stream is uploaded this much at a time, never held whole. */
  partSize?: number;
}

/** The original file name travels as object metadata, which S3 limits to US-ASCII: percent-encoded. */
const FILENAME_META = 'filename';

const isMissing = (err: unknown) =>
  err instanceof NoSuchKey ||
  (err as { name?: string }).name === 'NoSuchKey' ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * `BlobStore` on an S3-compatible object store (issue 33): one private object per key, written with server-side
 * encryption. A stream goes up in parts (`@aws-sdk/lib-storage`'s `Upload`, 5 MiB by default, one part in flight at
 * a time), so a file is never held in memory whole. S3 shows an object only once its upload completes, so a failed or
 * oversize stream leaves nothing under the key: the multipart upload is aborted (its parts discarded; any still open
 * under the key too) and the key is deleted in case the last write landed. A later `put` under the same key replaces the object.
 */
/** A URL a browser PUTs one file to, with exactly these headers (all signed, as is the length). */
export interface PresignedPut {
  url: string;
  headers: Record<string, string>;
}

export function createS3BlobStore(o: S3BlobStoreOptions): BlobStore & {
  client: S3Client;
  close(): void;
  /**
   * A presigned `PUT` of exactly `size` bytes under `key` (direct uploads, issue 33), valid `expiresInSeconds`: the
   * type, the file name (metadata, as `put` writes it) and the encryption are signed headers the browser sends. The
   * bucket's CORS rules must allow the PUT from the sites' origins.
   */
  presignPut(key: string, info: BlobInfo, size: number, expiresInSeconds: number): Promise<PresignedPut>;
} {
  const config: S3ClientConfig = {
    region: o.region,
    forcePathStyle: o.forcePathStyle ?? Boolean(o.endpoint),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.credentials ? { credentials: o.credentials } : {}),
  };
  const client = new S3Client(config);
  // Presigned URLs without the SDK's flexible checksum: it would sign the checksum of an empty body into the URL.
  const presigner = new S3Client({ ...config, requestChecksumCalculation: 'WHEN_REQUIRED' });
  const Bucket = o.bucket;
  const name = (key: string) => {
    checkBlobKey(key);
    return `${o.prefix ?? ''}${key}`;
  };
  const sse = o.serverSideEncryption === 'none' ? {} : { ServerSideEncryption: o.serverSideEncryption ?? 'AES256' };
  const remove = (Key: string) => client.send(new DeleteObjectCommand({ Bucket, Key }));
  /**
   * Aborts every multipart upload still open under `Key`: `Upload` aborts its own, but one whose creation was in
   * flight when the stream failed can get its id after that (its parts would be kept, and billed, forever).
   */
  const abortOpenUploads = async (Key: string) => {
    const open = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
    for (const u of open.Uploads ?? [])
      if (u.Key === Key && u.UploadId)
        await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: u.UploadId }));
  };

  /**
   * Leaves nothing under `Key` (no open multipart upload, no object). When the store cannot be reached (the outage
   * that failed the upload), tried again in the background, backing off up to a minute, for ten minutes.
   */
  const pending = new Set<NodeJS.Timeout>();
  const leaveNothing = async (Key: string) => {
    await abortOpenUploads(Key);
    await remove(Key);
  };
  const retryLater = (Key: string, delayMs = 2_000, spentMs = 0) => {
    if (spentMs > 10 * 60_000) return;
    const timer = setTimeout(() => {
      pending.delete(timer);
      leaveNothing(Key).catch(() => retryLater(Key, Math.min(delayMs * 2, 60_000), spentMs + delayMs));
    }, delayMs);
    timer.unref();
    pending.add(timer);
  };

  return {
    client,
    close: () => {
      for (const timer of pending) clearTimeout(timer);
      client.destroy();
    },
    async put(key, data, info, maxBytes) {
      const Key = name(key);
      let size = 0;
      const body = new PassThrough();
      const upload = new Upload({
        client,
        queueSize: 1,
        partSize: o.partSize ?? 5 * 1024 * 1024,
        leavePartsOnError: false,
        params: {
          Bucket,
          Key,
          Body: body,
          ContentType: info.contentType,
          Metadata: { [FILENAME_META]: encodeURIComponent(info.filename) },
          ...sse,
        },
      });
      const uploaded = upload.done();
      // Settled later: a failure is awaited once the source is done with.
      uploaded.catch(() => {});
      try {
        await pipeline(
          data,
          byteLimit(maxBytes, (n) => {
            size = n;
          }),
          body,
        );
        await uploaded;
      } catch (err) {
        await upload.abort().catch(() => {});
        await uploaded.catch(() => {});
        await leaveNothing(Key).catch(() => retryLater(Key));
        throw err;
      }
      return { size };
    },
    async get(key) {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket, Key: name(key) }));
        const encoded = got.Metadata?.[FILENAME_META];
        let filename = key;
        try {
          if (encoded) filename = decodeURIComponent(encoded);
        } catch {}
        const info: BlobInfo = { contentType: got.ContentType ?? 'application/octet-stream', filename };
        return { stream: got.Body as Readable, info, size: got.ContentLength ?? 0 };
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      // S3 answers 204 for a key it does not hold.
      await remove(name(key));
    },
    async listBefore(before, cursor, limit) {
      const prefix = o.prefix ?? '';
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket,
          Prefix: prefix,
          MaxKeys: limit,
          ...(cursor ? { StartAfter: `${prefix}${cursor}` } : {}),
        }),
      );
      const names = (page.Contents ?? []).map((c) => ({ key: (c.Key ?? '').slice(prefix.length), at: c.LastModified }));
      // Only objects named as Formgate names blobs: anything else under the prefix is not the store's.
      const keys = names.filter((n) => isBlobKey(n.key) && (n.at?.getTime() ?? 0) < before.getTime()).map((n) => n.key);
      return { keys, next: page.IsTruncated ? (names.at(-1)?.key ?? null) : null };
    },
    async presignPut(key, info, size, expiresInSeconds) {
      const headers: Record<string, string> = {
        'content-type': info.contentType,
        [`x-amz-meta-${FILENAME_META}`]: encodeURIComponent(info.filename),
        ...(sse.ServerSideEncryption ? { 'x-amz-server-side-encryption': sse.ServerSideEncryption } : {}),
      };
      const command = new PutObjectCommand({
        Bucket,
        Key: name(key),
        ContentType: info.contentType,
        ContentLength: size,
        Metadata: { [FILENAME_META]: encodeURIComponent(info.filename) },
        ...sse,
      });
      const url = await getSignedUrl(presigner, command, {
        expiresIn: expiresInSeconds,
        // Signed headers, not query parameters: every S3-compatible server reads them there.
        signableHeaders: new Set(['content-type', 'content-length']),
        unhoistableHeaders: new Set(Object.keys(headers).filter((h) => h.startsWith('x-amz-'))),
      });
      return { url, headers };
    },
  };
}
