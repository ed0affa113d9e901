export * from './gridfs-blob-store.ts';
export * from './mongo.ts';
