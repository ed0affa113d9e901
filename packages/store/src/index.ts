export * from './blob-store.ts';
export * from './fallback-blob-store.ts';
export * from './fs-blob-store.ts';
export * from './gridfs-blob-store.ts';
export * from './mongo.ts';
export * from './sqlite.ts';
export * from './sqlite-blob-store.ts';
