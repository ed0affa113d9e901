export * from './blob-store.ts';
export * from './fs-blob-store.ts';
export * from './migrations.ts';
