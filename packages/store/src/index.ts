export * from './blob-store.ts';
export * from './migrations.ts';
