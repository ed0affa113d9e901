// The `@formgate/store/mongo` subpath, no FerretDB pattern itself: each primitive says what MongoDB 7/8 does instead.
export * from './gridfs-blob-store.ts';
export * from './mongo.ts';
export * from './mongo-equality-flag.ts';
export * from './mongo-insert-once.ts';
export * from './mongo-migrations.ts';
export * from './mongo-outcome-overlay.ts';
export * from './mongo-page-buckets.ts';
export * from './mongo-tombstones.ts';
export * from './mongo-version-outbox.ts';
export * from './mongo-write-group.ts';
export * from './mongo-writer-counters.ts';
