/** The S3-compatible object store (`@aws-sdk/client-s3`), apart so that hosts without it never load the SDK. */
export { createS3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.ts';
