export * from './gridfs-blob-store.ts';
export * from './mongo.ts';
export * from './mongo-equality-flag.ts';
export * from './mongo-insert-once.ts';
export * from './mongo-migrations.ts';
export * from './mongo-version-outbox.ts';
export * from './mongo-write-group.ts';
