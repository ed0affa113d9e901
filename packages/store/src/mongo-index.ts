export * from './gridfs-blob-store.ts';
export * from './mongo.ts';
export * from './mongo-migrations.ts';
export * from './mongo-page-buckets.ts';
export * from './mongo-tombstones.ts';
export * from './mongo-version-outbox.ts';
export * from './mongo-writer-counters.ts';
